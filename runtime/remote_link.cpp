#include "runtime/remote_link.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "runtime/thread_name.h"
#include "transport/frame.h"

namespace tempest::runtime {

using transport::FrameKind;

namespace {
// How often the receiving thread looks at its stop flag when nothing arrives.
constexpr std::chrono::milliseconds kReceivePoll{50};
}  // namespace

RemoteLink::RemoteLink(std::unique_ptr<transport::Transport> transport, Options options)
    : transport_(std::move(transport)), options_(std::move(options)) {
  credit_.resize(options_.worker_of.size());
  for (std::size_t t = 1; t < options_.worker_of.size(); ++t) {
    if (options_.worker_of[t] == options_.self) continue;
    credit_[t] = std::make_unique<Credit>();
    credit_[t]->available = options_.credit_tuples;
  }
}

RemoteLink::~RemoteLink() {
  Close();
  stopping_ = true;
  if (receiver_.joinable()) receiver_.join();
}

void RemoteLink::StartReceiving(std::vector<TaskQueue*> local_queues) {
  local_queues_ = std::move(local_queues);
  local_queues_.resize(options_.worker_of.size(), nullptr);
  receiver_ = std::thread([this] {
    NameThisThread(fmt::format("w{} network", options_.self));
    ReceiveLoop();
  });
}

void RemoteLink::Connect(const std::vector<std::string>& endpoints) {
  transport_->Connect(endpoints);
  std::string hello;
  for (int peer = 0; peer < options_.workers; ++peer) {
    if (peer == options_.self) continue;
    hello.clear();
    transport::EncodeControlFrame(FrameKind::kHello, options_.self, peer, hello);
    transport_->Send(peer, hello);
  }
}

bool RemoteLink::HeardFromAllPeers() const {
  std::lock_guard lock(mu_);
  return static_cast<int>(heard_from_.size()) == options_.workers - 1;
}

void RemoteLink::PeerRestarted(int peer, const std::string& endpoint) {
  transport_->Reconnect(peer, endpoint);
  // The old incarnation's queues are gone: its tasks start with full credit again.
  for (std::size_t t = 1; t < options_.worker_of.size(); ++t) {
    if (options_.worker_of[t] != peer) continue;
    Credit& c = *credit_[t];
    {
      std::lock_guard lock(c.mu);
      c.available = options_.credit_tuples;
    }
    c.cv.notify_all();
  }
  std::string frame;
  transport::EncodeControlFrame(FrameKind::kHello, options_.self, peer, frame);
  transport_->Send(peer, frame);
  std::vector<Marker> resend;
  {
    std::lock_guard lock(mu_);
    for (const Marker& m : eos_sent_) {
      if (options_.worker_of[std::get<1>(m)] == peer) {
        resend.push_back(m);
        eos_pending_.insert(m);
      }
    }
  }
  // The set's order puts each pair's end-of-stream before its close (kind 2 before 9).
  for (const auto& [from, to, kind] : resend) {
    frame.clear();
    transport::EncodeControlFrame(kind, from, to, frame);
    transport_->Send(peer, frame);
  }
}

bool RemoteLink::SendTuples(int to_task, std::string_view frame, uint32_t count) {
  if (!WaitForCredit(to_task, count)) return false;
  return transport_->Send(worker_of(to_task), frame);
}

bool RemoteLink::SendAcks(int to_task, std::string_view frame, uint32_t count, bool credited) {
  if (credited && !WaitForCredit(to_task, count)) return false;
  if (closed_.load()) return false;
  return transport_->Send(worker_of(to_task), frame);
}

bool RemoteLink::WaitForCredit(int to_task, uint32_t count) {
  Credit& c = *credit_[to_task];
  {
    std::unique_lock lock(c.mu);
    // A frame never holds more than the whole credit (batches are smaller), but a restart may
    // have reset the credit below what is in flight: wait for what the frame needs, at most all.
    const uint64_t need = std::min<uint64_t>(count, options_.credit_tuples);
    if (c.available < need) {
      c.cv.wait(lock, [&] { return c.available >= need || closed_.load(); });
    }
    if (closed_.load()) return false;
    c.available -= std::min<uint64_t>(c.available, count);
  }
  return true;
}

bool RemoteLink::SendEndOfStream(int from_task, int to_task) {
  return SendMarker(from_task, to_task, FrameKind::kEndOfStream);
}

bool RemoteLink::SendClose(int from_task, int to_task) {
  return SendMarker(from_task, to_task, FrameKind::kClose);
}

bool RemoteLink::SendMarker(int from_task, int to_task, FrameKind kind) {
  if (closed_.load()) return false;
  {
    std::lock_guard lock(mu_);
    eos_sent_.emplace(from_task, to_task, kind);
    eos_pending_.emplace(from_task, to_task, kind);
  }
  std::string frame;
  transport::EncodeControlFrame(kind, from_task, to_task, frame);
  return transport_->Send(worker_of(to_task), frame);
}

void RemoteLink::ReturnCredit(int peer, int task, uint64_t tuples) {
  std::string frame;
  transport::EncodeCreditFrame(task, tuples, frame);
  transport_->Send(peer, frame);
}

bool RemoteLink::AllEndOfStreamConfirmed() const {
  std::lock_guard lock(mu_);
  return eos_pending_.empty();
}

void RemoteLink::DropFrame(std::string_view why) {
  const uint64_t n = dropped_.fetch_add(1, std::memory_order_relaxed) + 1;
  if (n <= 10 || n % 1000 == 0) {
    spdlog::warn("worker {}: dropped a bad frame: {} (bad frame #{} of this worker)", options_.self,
                 why, n);
  }
}

void RemoteLink::Close() {
  closed_ = true;
  for (auto& c : credit_) {
    if (!c) continue;
    { std::lock_guard lock(c->mu); }
    c->cv.notify_all();
  }
}

void RemoteLink::ReceiveLoop() {
  std::string message;
  while (!stopping_.load()) {
    if (!transport_->Receive(message, kReceivePoll)) continue;
    Handle(message);
  }
}

void RemoteLink::Handle(std::string& message) {
  transport::FrameHeader h;
  std::string error;
  if (transport::PeekFrameHeader(message, h, &error) != transport::DecodeStatus::kOk) {
    DropFrame(error);
    return;
  }
  const int tasks = static_cast<int>(options_.worker_of.size()) - 1;
  const auto remote_task = [&](int t) { return t >= 1 && t <= tasks && !IsLocal(t); };
  switch (h.kind) {
    case FrameKind::kTuples:
    case FrameKind::kAcks:
    case FrameKind::kEndOfStream:
    case FrameKind::kClose: {
      if (!IsLocal(h.to_task) || !remote_task(h.from_task)) {
        DropFrame(
            fmt::format("a frame from task {} to task {}, which is not a task of this "
                        "worker fed from another",
                        h.from_task, h.to_task));
        return;
      }
      TaskQueue* queue = local_queues_[h.to_task];
      if (queue == nullptr) {
        DropFrame(fmt::format("a frame for task {}, which does not run any more", h.to_task));
        return;
      }
      Envelope e;
      e.from_task = h.from_task;
      if (h.kind == FrameKind::kTuples || h.kind == FrameKind::kAcks) {
        e.kind = Envelope::Kind::kFrame;
        e.frame = std::move(message);
        e.frame_tuples = static_cast<uint32_t>(h.count);
        message = std::string();
      } else {
        const bool close = h.kind == FrameKind::kClose;
        e.kind = close ? Envelope::Kind::kClose : Envelope::Kind::kEndOfStream;
        std::string ack;
        transport::EncodeControlFrame(close ? FrameKind::kCloseAck : FrameKind::kEndOfStreamAck,
                                      h.to_task, h.from_task, ack);
        transport_->Send(worker_of(h.from_task), ack);
      }
      queue->PushWithoutWaiting(std::move(e));
      return;
    }
    case FrameKind::kEndOfStreamAck:
    case FrameKind::kCloseAck: {
      const FrameKind marker =
          h.kind == FrameKind::kCloseAck ? FrameKind::kClose : FrameKind::kEndOfStream;
      bool confirmed_all = false;
      {
        std::lock_guard lock(mu_);
        const bool was_pending = eos_pending_.erase({h.to_task, h.from_task, marker}) > 0;
        confirmed_all = was_pending && eos_pending_.empty();
      }
      if (confirmed_all) Notify();
      return;
    }
    case FrameKind::kCredit: {
      if (!remote_task(h.from_task)) {
        DropFrame(fmt::format("credit for task {}, which is not a remote task", h.from_task));
        return;
      }
      Credit& c = *credit_[h.from_task];
      {
        std::lock_guard lock(c.mu);
        c.available = std::min(c.available + h.count, options_.credit_tuples);
      }
      c.cv.notify_all();
      return;
    }
    case FrameKind::kHello: {
      if (h.from_task < 0 || h.from_task >= options_.workers || h.from_task == options_.self) {
        DropFrame(fmt::format("a hello from worker {}, which is not a peer", h.from_task));
        return;
      }
      bool all = false;
      {
        std::lock_guard lock(mu_);
        all = heard_from_.insert(h.from_task).second &&
              static_cast<int>(heard_from_.size()) == options_.workers - 1;
      }
      if (all) Notify();
      return;
    }
  }
}

}  // namespace tempest::runtime
