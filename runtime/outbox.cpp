#include "runtime/outbox.h"

#include <algorithm>

#include "runtime/remote_link.h"

namespace tempest::runtime {

Outbox::Outbox(int from_task, std::vector<TaskQueue*> queues, Options options)
    : from_task_(from_task),
      queues_(std::move(queues)),
      batch_size_(std::max<std::size_t>(1, options.batch_size)),
      frame_bytes_(options.frame_bytes),
      frame_tuples_(options.link != nullptr ? options.link->max_frame_tuples() : 0),
      link_(options.link),
      streams_(options.streams),
      pending_(queues_.size()),
      frames_(queues_.size()) {}

int Outbox::StreamIndex(const topology::StreamSchema* schema) {
  if (schema != last_schema_) {
    last_schema_ = schema;
    last_stream_ = streams_->IndexOf(schema);
  }
  return last_stream_;
}

void Outbox::SendRemote(int task, const topology::StreamSchema* schema,
                        const topology::Values& values) {
  std::unique_ptr<transport::FrameBuilder>& frame = frames_[task];
  if (!frame) frame = std::make_unique<transport::FrameBuilder>();
  if (frame->count() == 0) {
    frame->Begin(from_task_, task);
    dirty_.push_back(task);
  }
  frame->Add(StreamIndex(schema), values);
  if (frame->bytes() >= frame_bytes_ || frame->count() >= frame_tuples_) Hand(task);
}

void Outbox::Hand(int task) {
  std::erase(dirty_, task);
  Push(task);
}

void Outbox::Push(int task) {
  if (queues_[task] == nullptr) {
    transport::FrameBuilder& frame = *frames_[task];
    const uint32_t count = frame.count();
    if (!link_->SendTuples(task, frame.Finish(), count)) open_ = false;
    frame.Begin(from_task_, task);  // keeps the buffer; count() is 0 again
    return;
  }
  Envelope e{Envelope::Kind::kTuples, from_task_, std::move(pending_[task]), {}, 0};
  pending_[task] = {};
  // The queue hands back a recycled buffer for the next batch to this task, if it has one.
  if (!queues_[task]->Push(std::move(e), &pending_[task])) open_ = false;
}

void Outbox::Flush() {
  for (int task : dirty_) {
    const bool has_data =
        queues_[task] == nullptr ? frames_[task]->count() > 0 : !pending_[task].empty();
    if (has_data) Push(task);
  }
  dirty_.clear();
}

void Outbox::SendEndOfStream(const std::vector<int>& tasks) {
  Flush();
  for (int task : tasks) {
    const bool sent =
        queues_[task] == nullptr
            ? link_->SendEndOfStream(from_task_, task)
            : queues_[task]->Push(Envelope{Envelope::Kind::kEndOfStream, from_task_, {}, {}, 0});
    if (!sent) open_ = false;
  }
}

}  // namespace tempest::runtime
