#include "bolts/file_sink.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "topology/json.h"

namespace tempest::bolts {
namespace {

// Lines are written in chunks of about this size, each ending at a line end, so that a single
// write() never splits a line between tasks appending to the same file.
constexpr std::size_t kChunkBytes = 1 << 20;
// Buffered bytes that force a flush before flush_ms has passed, bounding the buffer.
constexpr std::size_t kMaxBufferedBytes = 4 << 20;

std::string ErrnoText(int err) { return std::generic_category().message(err); }

// Writes all of `data` (whole lines) to `fd`; returns 0 or the errno of the failure.
int WriteLines(int fd, std::string_view data) {
  while (!data.empty()) {
    std::size_t chunk = data.size();
    if (chunk > kChunkBytes) {
      const std::size_t nl = data.rfind('\n', kChunkBytes - 1);
      chunk = nl == std::string_view::npos ? data.find('\n') + 1 : nl + 1;
      if (chunk == 0) chunk = data.size();  // no line end at all (cannot happen: lines end in \n)
    }
    std::string_view piece = data.substr(0, chunk);
    while (!piece.empty()) {
      const ssize_t n = ::write(fd, piece.data(), piece.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      piece.remove_prefix(static_cast<std::size_t>(n));
    }
    data.remove_prefix(chunk);
  }
  return 0;
}

// Appends `data` (whole lines) to `fd`, all or nothing: with the file locked against the other
// tasks' sinks (flock), a write that fails part-way is cut off again (ftruncate to where it
// began), so that no partial line is left for later lines to follow. Returns 0 or the errno of
// the write; `rollback_error`: the errno of a failed cut (0 if none was needed or it worked).
int AppendWholeLines(int fd, std::string_view data, int& rollback_error) {
  rollback_error = 0;
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!regular) return WriteLines(fd, data);  // a pipe or device: nothing to cut
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) return errno;
  }
  const off_t start = ::lseek(fd, 0, SEEK_END);
  const int err = start < 0 ? errno : WriteLines(fd, data);
  if (err != 0 && start >= 0 && ::ftruncate(fd, start) != 0) rollback_error = errno;
  ::flock(fd, LOCK_UN);
  return err;
}

}  // namespace

void ValidateFileSinkConfig(const FileSinkConfig& config) {
  if (config.path.empty()) throw std::invalid_argument("`path` is required: the file to write");
  if (config.flush_ms < 0) {
    throw std::invalid_argument(
        fmt::format("`flush_ms` must be 0 or more milliseconds, not {}", config.flush_ms));
  }
}

FileSink::FileSink(FileSinkConfig config, std::function<Clock::time_point()> now)
    : config_(std::move(config)), now_(std::move(now)) {
  ValidateFileSinkConfig(config_);
}

FileSink::~FileSink() { CloseFile(); }

void FileSink::Prepare(const topology::TopologyContext& context,
                       topology::OutputCollector& collector) {
  out_ = &collector;
  int flags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC;
  // Task 0 starts the file; a restarted worker's task appends to what the run already wrote.
  if (context.GetThisTaskIndex() == 0 && !context.IsRestarted()) flags |= O_TRUNC;
  fd_ = ::open(config_.path.c_str(), flags, 0644);
  if (fd_ < 0) {
    throw std::runtime_error(
        fmt::format("cannot open {} for writing: {}", config_.path, ErrnoText(errno)));
  }
  last_flush_ = now_();
}

void FileSink::Execute(const topology::Tuple& input) {
  topology::AppendJsonObject(buffer_, input.GetFields(), input.GetValues());
  buffer_.push_back('\n');
  const topology::AckMeta& ack = topology::TupleAccess::Ack(input);
  Hold(input.schema(), input.GetSourceTask(), {ack.anchors.data(), ack.anchors.size()});
  topology::TupleAccess::MutableAck(unacked_.back()).ack_val = ack.ack_val;
  FlushIfDue();
}

void FileSink::ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const topology::RowRef row = rows[i];
    const topology::StreamSchema* schema = row.schema();
    if (schema == nullptr || schema->fields->size() != row.size()) {
      out.ExecuteAsTuple(row);  // Execute throws for it, naming the mismatch
      continue;
    }
    topology::AppendJsonObject(buffer_, *schema->fields, row);
    buffer_.push_back('\n');
    Hold(schema, out.BatchSource(), row.anchors());
    if (buffer_.size() >= kMaxBufferedBytes) Flush();
  }
  FlushIfDue();
}

void FileSink::Hold(const topology::StreamSchema* schema, int source_task,
                    std::span<const topology::AckMeta::Anchor> anchors) {
  topology::Tuple& handle = unacked_.emplace_back(schema, source_task);
  topology::TupleAccess::MutableAck(handle).anchors.assign(anchors.begin(), anchors.end());
}

void FileSink::FlushIfDue() {
  if (buffer_.size() >= kMaxBufferedBytes ||
      now_() - last_flush_ >= std::chrono::milliseconds(config_.flush_ms)) {
    Flush();
  }
}

void FileSink::Flush() {
  last_flush_ = now_();
  if (buffer_.empty()) return;
  int rollback_error = 0;
  const int err = fd_ >= 0 ? AppendWholeLines(fd_, buffer_, rollback_error) : EBADF;
  buffer_.clear();
  if (err != 0) {
    out_->ReportError(fmt::format("cannot write to {}: {} ({} tuples failed{})", config_.path,
                                  ErrnoText(err), unacked_.size(),
                                  rollback_error == 0
                                      ? ""
                                      : fmt::format("; the partial write could not be cut off: {}",
                                                    ErrnoText(rollback_error))));
    for (const topology::Tuple& t : unacked_) out_->Fail(t);
  } else {
    for (const topology::Tuple& t : unacked_) out_->Ack(t);
  }
  unacked_.clear();
}

void FileSink::OnEndOfStream() { Flush(); }

std::chrono::milliseconds FileSink::TickInterval() const {
  return std::chrono::milliseconds(config_.flush_ms);
}

// Ticks come about every flush_ms: whatever is buffered by then is due.
void FileSink::OnTick() { Flush(); }

void FileSink::Cleanup() {
  if (out_ != nullptr) Flush();
  CloseFile();
}

void FileSink::DeclareOutputFields(topology::OutputFieldsDeclarer&) const {}

void FileSink::CloseFile() noexcept {
  if (fd_ >= 0) {
    ::close(fd_);
    fd_ = -1;
  }
}

}  // namespace tempest::bolts
