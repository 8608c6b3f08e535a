#include "runtime/process/remote_link.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "runtime/thread_name.h"
#include "transport/frame.h"

namespace tempest::runtime {

using transport::FrameKind;

namespace {
// How often the receiving thread looks at its stop flag when nothing arrives.
constexpr std::chrono::milliseconds kReceivePoll{50};
// How often it looks at the released inboxes (only markers and stray frames come there).
constexpr std::chrono::milliseconds kReleasedPoll{5};
}  // namespace

// A task's inbox as its queue's source: frames become the envelopes the network thread would
// have pushed.
class RemoteLink::InboxSource final : public EnvelopeSource {
 public:
  InboxSource(RemoteLink& link, int task, std::unique_ptr<transport::TaskInbox> inbox)
      : link_(link), task_(task), inbox_(std::move(inbox)) {}
  const std::string& endpoint() const noexcept { return inbox_->endpoint(); }

  // The next usable frame's envelope; false when nothing is queued (bad frames are counted
  // and skipped).
  bool Next(Envelope& e) {
    while (inbox_->TryReceive(message_)) {
      transport::FrameHeader h;
      std::string error;
      if (transport::PeekFrameHeader(message_, h, &error) != transport::DecodeStatus::kOk) {
        link_.DropFrame(error);
        continue;
      }
      if (link_.ToEnvelope(h, task_, message_, e)) return true;
    }
    return false;
  }
  void Drain(std::vector<Envelope>& out) override {
    for (Envelope e; Next(e); e = Envelope()) out.push_back(std::move(e));
  }
  void Wait(int wake_fd, int timeout_ms) override { inbox_->Wait(wake_fd, timeout_ms); }

 private:
  RemoteLink& link_;
  const int task_;
  std::unique_ptr<transport::TaskInbox> inbox_;
  std::string message_;
};

std::string RemoteLink::FormatEndpoints(const Endpoints& e) {
  std::string out = e.worker;
  for (const auto& [task, endpoint] : e.tasks) out += fmt::format("\n{}={}", task, endpoint);
  return out;
}

RemoteLink::Endpoints RemoteLink::ParseEndpoints(std::string_view text) {
  Endpoints e;
  std::size_t at = text.find('\n');
  e.worker = std::string(text.substr(0, at));
  while (at != std::string_view::npos) {
    const std::size_t next = text.find('\n', at + 1);
    const std::string_view line = text.substr(
        at + 1, next == std::string_view::npos ? std::string_view::npos : next - at - 1);
    const std::size_t eq = line.find('=');
    int task = 0;
    const auto [end, ec] =
        std::from_chars(line.data(), line.data() + std::min(eq, line.size()), task);
    if (eq == std::string_view::npos || ec != std::errc() || end != line.data() + eq || task < 1 ||
        eq + 1 == line.size()) {
      throw std::runtime_error(fmt::format(
          "a worker endpoint list has a bad task entry \"{}\" (expected <task>=<endpoint>)", line));
    }
    e.tasks.emplace_back(task, std::string(line.substr(eq + 1)));
    at = next;
  }
  if (e.worker.empty()) throw std::runtime_error("a worker endpoint list names no endpoint");
  return e;
}

RemoteLink::RemoteLink(std::unique_ptr<transport::Transport> transport, Options options)
    : transport_(std::move(transport)), options_(std::move(options)) {
  Endpoints mine{transport_->endpoint(), {}};
  inboxes_.resize(options_.worker_of.size());
  for (int t : options_.inbox_tasks) {
    if (!IsLocal(t) || inboxes_[t]) continue;
    inboxes_[t] = std::make_unique<InboxSource>(*this, t, transport_->OpenTaskInbox(t));
    mine.tasks.emplace_back(t, inboxes_[t]->endpoint());
  }
  endpoint_ = FormatEndpoints(mine);
  channel_.assign(options_.worker_of.size(), 0);
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
  for (std::size_t t = 0; t < inboxes_.size(); ++t) {
    if (!inboxes_[t]) continue;
    if (local_queues_[t] != nullptr) {
      local_queues_[t]->AttachSource(inboxes_[t].get());
    } else {
      ReleaseInbox(static_cast<int>(t));
    }
  }
  receiver_ = std::thread([this] {
    NameThisThread(fmt::format("w{} network", options_.self));
    ReceiveLoop();
  });
}

void RemoteLink::ConnectTasks(int peer, const Endpoints& e, bool first) {
  for (const auto& [task, endpoint] : e.tasks) {
    if (task >= static_cast<int>(options_.worker_of.size()) || options_.worker_of[task] != peer) {
      throw std::runtime_error(fmt::format(
          "worker {} lists an inbox for task {}, which is not one of its tasks", peer, task));
    }
    // Channels are fixed at the first connect (senders read channel_ without a lock); a
    // restarted peer runs the same tasks, so it lists the same inboxes.
    if (!first && channel_[task] == 0) continue;
    transport_->ConnectTask(task, endpoint);
    channel_[task] = 1;
  }
}

void RemoteLink::Connect(const std::vector<std::string>& endpoints) {
  std::vector<std::string> workers;
  std::vector<Endpoints> parsed;
  for (const std::string& text : endpoints) {
    parsed.push_back(ParseEndpoints(text));
    workers.push_back(parsed.back().worker);
  }
  transport_->Connect(workers);
  for (int peer = 0; peer < static_cast<int>(parsed.size()); ++peer) {
    if (peer != options_.self) ConnectTasks(peer, parsed[peer], true);
  }
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
  const Endpoints parsed = ParseEndpoints(endpoint);
  transport_->Reconnect(peer, parsed.worker);
  ConnectTasks(peer, parsed, false);
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
    Deliver(to, frame);
  }
}

bool RemoteLink::Deliver(int to_task, std::string_view bytes) {
  return channel_[to_task] != 0 ? transport_->SendToTask(to_task, bytes)
                                : transport_->Send(worker_of(to_task), bytes);
}

bool RemoteLink::SendTuples(int to_task, std::string_view frame, uint32_t count,
                            const WhileBlocked* while_blocked) {
  if (!WaitForCredit(to_task, count, while_blocked)) return false;
  return Deliver(to_task, frame);
}

bool RemoteLink::SendAcks(int to_task, std::string_view frame, uint32_t count, bool credited,
                          const WhileBlocked* while_blocked) {
  if (credited && !WaitForCredit(to_task, count, while_blocked)) return false;
  if (closed_.load()) return false;
  return Deliver(to_task, frame);
}

bool RemoteLink::WaitForCredit(int to_task, uint32_t count, const WhileBlocked* while_blocked) {
  Credit& c = *credit_[to_task];
  {
    std::unique_lock lock(c.mu);
    // A frame never holds more than the whole credit (batches are smaller), but a restart may
    // have reset the credit below what is in flight: wait for what the frame needs, at most all.
    const uint64_t need = std::min<uint64_t>(count, options_.credit_tuples);
    WaitRunning(
        c.cv, lock, [&] { return c.available >= need || closed_.load(); }, while_blocked);
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
  return Deliver(to_task, frame);
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

void RemoteLink::ReleaseInbox(int task) {
  if (task < 1 || task >= static_cast<int>(inboxes_.size()) || !inboxes_[task]) return;
  std::lock_guard lock(released_mu_);
  if (std::find(released_.begin(), released_.end(), task) != released_.end()) return;
  released_.push_back(task);
  any_released_ = true;
}

void RemoteLink::ReceiveLoop() {
  std::string message;
  while (!stopping_.load()) {
    const bool released = any_released_.load();
    if (transport_->Receive(message, released ? kReleasedPoll : kReceivePoll)) Handle(message);
    if (released) DrainReleasedInboxes();
  }
}

void RemoteLink::DrainReleasedInboxes() {
  std::vector<int> tasks;
  {
    std::lock_guard lock(released_mu_);  // also orders this thread after the task's last use
    tasks = released_;
  }
  for (int t : tasks) {
    for (Envelope e; inboxes_[t]->Next(e); e = Envelope()) {
      if (TaskQueue* queue = local_queues_[t]) {
        queue->PushWithoutWaiting(std::move(e));
      } else {
        DropFrame(fmt::format("a frame for task {}, which does not run any more", t));
      }
    }
  }
}

bool RemoteLink::ToEnvelope(const transport::FrameHeader& h, int to, std::string& message,
                            Envelope& e) {
  const int tasks = static_cast<int>(options_.worker_of.size()) - 1;
  if (h.to_task != to || !IsLocal(h.to_task) || h.from_task < 1 || h.from_task > tasks ||
      IsLocal(h.from_task)) {
    DropFrame(to == h.to_task
                  ? fmt::format("a frame from task {} to task {}, which is not a task of this "
                                "worker fed from another",
                                h.from_task, h.to_task)
                  : fmt::format("a frame from task {} to task {} came to the inbox of task {}",
                                h.from_task, h.to_task, to));
    return false;
  }
  e.from_task = h.from_task;
  if (h.kind == FrameKind::kTuples || h.kind == FrameKind::kAcks) {
    e.kind = Envelope::Kind::kFrame;
    e.frame = std::move(message);
    e.frame_tuples = static_cast<uint32_t>(h.count);
    message = std::string();
    return true;
  }
  const bool close = h.kind == FrameKind::kClose;
  e.kind = close ? Envelope::Kind::kClose : Envelope::Kind::kEndOfStream;
  std::string ack;
  transport::EncodeControlFrame(close ? FrameKind::kCloseAck : FrameKind::kEndOfStreamAck,
                                h.to_task, h.from_task, ack);
  transport_->Send(worker_of(h.from_task), ack);
  return true;
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
      TaskQueue* queue = IsLocal(h.to_task) ? local_queues_[h.to_task] : nullptr;
      if (IsLocal(h.to_task) && remote_task(h.from_task) && queue == nullptr) {
        DropFrame(fmt::format("a frame for task {}, which does not run any more", h.to_task));
        return;
      }
      Envelope e;
      if (!ToEnvelope(h, h.to_task, message, e)) return;
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
