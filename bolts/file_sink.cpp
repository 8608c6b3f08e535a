#include "bolts/file_sink.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

// The offset just past the last line end of the file's first `end` bytes (0 if it has none), or
// -1 with errno set.
off_t EndOfLastWholeLine(int fd, off_t end) {
  char block[4096];
  off_t pos = end;
  while (pos > 0) {
    const off_t from = std::max<off_t>(0, pos - static_cast<off_t>(sizeof block));
    const ssize_t n = ::pread(fd, block, static_cast<std::size_t>(pos - from), from);
    if (n < 0 && errno == EINTR) continue;
    if (n != pos - from) {
      if (n >= 0) errno = EIO;  // the file shrank under the lock: not ours to guess
      return -1;
    }
    for (ssize_t i = n; i > 0; --i) {
      if (block[i - 1] == '\n') return from + i;
    }
    pos = from;
  }
  return 0;
}

// Cuts off a torn last line: a sink whose process is killed while it writes can leave one (the
// kernel ends a write at a page boundary once SIGKILL is pending), and a line appended to it
// would be glued to it and lost although acked. The torn line's tuples were never acked, so
// they replay. Returns the file's new end, or -1 with errno set.
off_t DropTornLine(int fd, off_t end) {
  const off_t whole = EndOfLastWholeLine(fd, end);
  if (whole < 0 || whole == end) return whole;
  if (::ftruncate(fd, whole) != 0) return -1;
  spdlog::warn("FileSink: cut off a partial last line ({} bytes) that a killed writer left",
               end - whole);
  return whole;
}

// Appends `data` (whole lines) to `fd`, all or nothing: with the file locked against the other
// tasks' sinks (flock), a write that fails part-way is cut off again (ftruncate to where it
// began), so that no partial line is left for later lines to follow; a partial line left by a
// killed sink is cut off first. `readable`: whether `fd` can be read (needed to find a torn
// line). Returns 0 or the errno of the write; `rollback_error`: the errno of a failed cut (0 if
// none was needed or it worked).
int AppendWholeLines(int fd, bool readable, std::string_view data, int& rollback_error) {
  rollback_error = 0;
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (!regular) return WriteLines(fd, data);  // a pipe or device: nothing to cut
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno != EINTR) return errno;
  }
  off_t start = ::lseek(fd, 0, SEEK_END);
  if (start > 0 && readable) start = DropTornLine(fd, start);
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
  int flags = O_CREAT | O_APPEND | O_CLOEXEC;
  // Task 0 starts the file; a restarted worker's task appends to what the run already wrote.
  if (context.GetThisTaskIndex() == 0 && !context.IsRestarted()) flags |= O_TRUNC;
  // Read access finds a torn last line; a file only writable to us is written without it.
  fd_ = ::open(config_.path.c_str(), flags | O_RDWR, 0644);
  readable_ = fd_ >= 0;
  if (fd_ < 0 && errno == EACCES) fd_ = ::open(config_.path.c_str(), flags | O_WRONLY, 0644);
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
  const int err = fd_ >= 0 ? AppendWholeLines(fd_, readable_, buffer_, rollback_error) : EBADF;
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
