#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <utility>
#include <vector>

#include "runtime/acking/ack_ids.h"
#include "topology/tuple.h"

namespace tempest::runtime {

// The anchors of the frames a spout task sent to one task of another worker, kept until that
// task's frame ack (docs/acking.md): one message naming a frame by its first tuple's anchor,
// then the ranges of its tuples that were acked without children. The spout applies those acks
// from what it kept here, so such a tuple's ack costs no message of its own. A frame is kept
// only when every tuple in it has exactly one anchor (a tracked spout tuple); the receiving
// bolt applies the same test before it acks a frame. Frames arrive and are executed in order,
// so their acks come back in order. Used on the spout task's thread only.
class SentFrames {
 public:
  using Anchor = topology::AckMeta::Anchor;
  using Clock = std::chrono::steady_clock;

  explicit SentFrames(uint64_t salt) : keys_(salt), edge_key_(keys_.Next()) {}

  // The open frame's edge key: its tuples' edge ids derive from it (transport::DerivedEdge), so
  // they travel with their roots alone. Random per frame, as edge ids are.
  uint64_t edge_key() const noexcept { return edge_key_; }

  // A tuple went into the open frame with these anchors.
  void Add(std::span<const Anchor> anchors) {
    if (anchors.size() == 1) {
      open_.push_back(anchors[0]);
    } else {
      open_keep_ = false;
    }
  }

  // The open frame was sent (a frame is never empty): it is kept if every tuple had one anchor.
  // The next tuple opens a new frame.
  void Sent(Clock::time_point now) {
    if (open_keep_ && !open_.empty()) {
      kept_.push_back(Frame{std::move(open_), now});
      open_ = TakeSpare();
    }
    open_.clear();
    open_keep_ = true;
    edge_key_ = keys_.Next();
  }

  // A frame ack for the frame whose first tuple's anchor is (root, edge): the frame acked before
  // is done, and so is every frame sent before this one (their acks will not come: the receiver
  // restarted, or dropped them). False, and nothing dropped, when no frame kept matches (one
  // expired, or an ack from before a restart of this spout).
  bool Start(uint64_t root, uint64_t edge) {
    if (current_) Drop();
    for (std::size_t i = 0; i < kept_.size(); ++i) {
      const Anchor& first = kept_[i].anchors.front();
      if (first.root != root || first.edge != edge) continue;
      for (; i > 0; --i) Drop();
      current_ = true;
      return true;
    }
    return false;
  }

  // Tuples [begin, end) of the frame Start found (none if it found none), as far as it has them.
  std::span<const Anchor> Rows(uint64_t begin, uint64_t end) const noexcept {
    if (!current_) return {};
    const std::vector<Anchor>& rows = kept_.front().anchors;
    end = std::min<uint64_t>(end, rows.size());
    if (begin >= end) return {};
    return {rows.data() + begin, static_cast<std::size_t>(end - begin)};
  }

  // Forgets frames sent before `before`: their trees have timed out.
  void Expire(Clock::time_point before) {
    while (!kept_.empty() && kept_.front().sent < before) Drop();
  }

  std::size_t kept() const noexcept { return kept_.size(); }

 private:
  struct Frame {
    std::vector<Anchor> anchors;
    Clock::time_point sent;
  };

  void Drop() {
    if (spare_.size() < kSpares) spare_.push_back(std::move(kept_.front().anchors));
    kept_.pop_front();
    current_ = false;
  }
  std::vector<Anchor> TakeSpare() {
    if (spare_.empty()) return {};
    std::vector<Anchor> v = std::move(spare_.back());
    spare_.pop_back();
    return v;
  }

  AckIds keys_;
  uint64_t edge_key_;
  std::vector<Anchor> open_;
  bool open_keep_ = true;
  std::deque<Frame> kept_;
  bool current_ = false;                    // kept_.front() is the frame Start found
  std::vector<std::vector<Anchor>> spare_;  // buffers of dropped frames, for the next ones
  static constexpr std::size_t kSpares = 4;
};

}  // namespace tempest::runtime
