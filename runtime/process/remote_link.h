#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "runtime/queues/task_queue.h"
#include "transport/frame.h"
#include "transport/transport.h"

namespace tempest::runtime {

// One worker's connection to the others: sends frames to remote tasks with credit-based flow
// control, receives frames on its own thread and hands them to local task queues, and keeps the
// end-of-stream handshake.
//
// Flow control: for every remote task, this worker may have at most `credit_tuples` tuples in
// flight (sent but not yet given back by that task). A sender blocks until the remote task
// returns credit, so a slow remote bolt slows exactly its producers, as a full local queue does,
// and the receiving thread never has to block (which would stall every task of its worker
// behind one slow one). A task gives credit back in batches of credit_batch() tuples (a quarter
// of the credit: one small message per many frames); since a frame never carries more than half
// the credit (max_frame_tuples), a blocked sender always has tuples in the task's queue that will
// free the rest.
//
// Handshake: every end-of-stream sent to a remote task is confirmed by the receiving worker;
// AllEndOfStreamConfirmed() says when everything this worker sent has arrived (ZeroMQ's FIFO
// order: a confirmed end-of-stream follows all of its sender's tuples). Exiting before that can
// lose the last messages (libzmq #4660).
//
// Task inboxes: the tasks in Options::inbox_tasks get a receiving socket of their own
// (Transport::OpenTaskInbox), which their queue drains and waits on (TaskQueue::AttachSource),
// and peers send those tasks' frames and markers there instead of to this worker's socket: a
// frame from another worker then reaches its task through the two ZeroMQ I/O threads only, not
// through this link's receiving thread as well. endpoint() lists them ("<worker endpoint>" then
// one "\n<task>=<endpoint>" per inbox); Connect and PeerRestarted read such lists. Credit,
// hellos and confirmations still travel between the worker sockets.
//
// Thread-safety: every public method may be called from any thread.
class RemoteLink {
 public:
  struct Options {
    int self = 0;                // this worker's index
    int workers = 1;             // how many workers the run has
    std::vector<int> worker_of;  // worker index of each task id (index 0 unused)
    uint64_t credit_tuples = 16 * 1024;
    // Called when a waiter may want to look again: every peer heard from, every end-of-stream
    // confirmed. May be empty.
    std::function<void()> notify;
    // Local tasks that get an inbox of their own (see above).
    std::vector<int> inbox_tasks;
  };

  // A worker's endpoint text: its data endpoint and its tasks' inboxes.
  struct Endpoints {
    std::string worker;
    std::vector<std::pair<int, std::string>> tasks;
  };
  static std::string FormatEndpoints(const Endpoints& e);
  // Throws std::runtime_error naming the text if it is not one FormatEndpoints writes.
  static Endpoints ParseEndpoints(std::string_view text);

  RemoteLink(std::unique_ptr<transport::Transport> transport, Options options);
  ~RemoteLink();  // stops the receiving thread
  RemoteLink(const RemoteLink&) = delete;
  RemoteLink& operator=(const RemoteLink&) = delete;

  // What peers need to reach this worker and its tasks' inboxes (see above).
  const std::string& endpoint() const noexcept { return endpoint_; }
  int workers() const noexcept { return options_.workers; }
  uint64_t credit_batch() const noexcept {
    return std::max<uint64_t>(1, options_.credit_tuples / 4);
  }
  // The most tuples one frame may carry: half the credit.
  uint32_t max_frame_tuples() const noexcept {
    return static_cast<uint32_t>(std::max<uint64_t>(1, options_.credit_tuples / 2));
  }
  int worker_of(int task) const noexcept { return options_.worker_of[task]; }
  bool IsLocal(int task) const noexcept {
    return task >= 1 && task < static_cast<int>(options_.worker_of.size()) &&
           options_.worker_of[task] == options_.self;
  }

  // Starts receiving; frames for task t go to local_queues[t] (nullptr: not running here, the
  // frame is dropped and counted). A task with an inbox has it attached to its queue, whose
  // consumer must stop before this link is destroyed.
  void StartReceiving(std::vector<TaskQueue*> local_queues);
  // Task `task` stops taking from its inbox (its executor ended, or it does not run in this
  // incarnation): from now on the receiving thread reads the inbox as it reads the worker
  // socket, so markers sent to the task are still confirmed. No-op without an inbox.
  void ReleaseInbox(int task);
  // Connects to every peer and greets it (a hello frame).
  void Connect(const std::vector<std::string>& endpoints);
  // Every peer's hello has arrived (each directed channel into this worker works).
  bool HeardFromAllPeers() const;
  // A peer was restarted: reconnect, restore its tasks' credit, greet it, and send again the
  // end-of-stream of every local task that had already ended towards its tasks.
  void PeerRestarted(int peer, const std::string& endpoint);

  // Sends a finished kTuples frame of `count` tuples to remote task `to_task`; blocks until it
  // has the credit, running `while_blocked` (if given and non-empty) while it waits. False once
  // closed.
  bool SendTuples(int to_task, std::string_view frame, uint32_t count,
                  const WhileBlocked* while_blocked = nullptr);
  // Sends a kAcks frame of `count` messages; with `credited` it waits for (and uses) credit like
  // tuples do (to acker tasks), without it never blocks (the acker's replies to spouts).
  bool SendAcks(int to_task, std::string_view frame, uint32_t count, bool credited,
                const WhileBlocked* while_blocked = nullptr);
  // The two end markers of a task towards one remote task; each is confirmed by the receiving
  // worker and sent again to a restarted peer.
  bool SendEndOfStream(int from_task, int to_task);
  bool SendClose(int from_task, int to_task);
  // Task `task` (local) has taken `tuples` tuples that worker `peer` sent it: give the credit
  // back.
  void ReturnCredit(int peer, int task, uint64_t tuples);
  bool AllEndOfStreamConfirmed() const;

  // Counts a frame that could not be used, with a (rate-limited) log line saying why.
  void DropFrame(std::string_view why);
  uint64_t dropped_frames() const noexcept { return dropped_.load(std::memory_order_relaxed); }

  // Wakes every blocked sender; later sends fail. Receiving goes on until destruction.
  void Close();

 private:
  struct Credit {
    std::mutex mu;
    std::condition_variable cv;
    uint64_t available = 0;
  };

  class InboxSource;

  bool SendMarker(int from_task, int to_task, transport::FrameKind kind);
  // Sends to remote task `to_task`: to its inbox if it has one, else to its worker.
  bool Deliver(int to_task, std::string_view bytes);
  // A tuples, acks, end-of-stream or close frame for local task `to` as the envelope its queue
  // takes (confirming a marker to its sender); false if it was dropped (and counted).
  bool ToEnvelope(const transport::FrameHeader& h, int to, std::string& message, Envelope& e);
  void ConnectTasks(int peer, const Endpoints& e, bool first);
  bool WaitForCredit(int to_task, uint32_t count, const WhileBlocked* while_blocked = nullptr);
  void ReceiveLoop();
  void DrainReleasedInboxes();
  void Handle(std::string& message);
  void Notify() {
    if (options_.notify) options_.notify();
  }

  std::unique_ptr<transport::Transport> transport_;
  Options options_;
  std::vector<std::unique_ptr<InboxSource>> inboxes_;  // by task id; closed before transport_
  std::string endpoint_;
  std::vector<uint8_t> channel_;  // by task id: a remote task we send to at its inbox
  std::mutex released_mu_;
  std::vector<int> released_;  // inboxes the receiving thread reads (ReleaseInbox)
  std::atomic<bool> any_released_{false};
  std::vector<std::unique_ptr<Credit>> credit_;  // by task id: remote tasks only
  std::vector<TaskQueue*> local_queues_;
  std::atomic<bool> closed_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<uint64_t> dropped_{0};

  mutable std::mutex mu_;     // guards the sets below
  std::set<int> heard_from_;  // peers whose hello arrived
  // (from local task, to remote task, end-of-stream or close frame kind)
  using Marker = std::tuple<int, int, transport::FrameKind>;
  std::set<Marker> eos_sent_;
  std::set<Marker> eos_pending_;  // sent, not yet confirmed
  std::thread receiver_;
};

}  // namespace tempest::runtime
