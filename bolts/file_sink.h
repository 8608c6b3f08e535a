#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "topology/bolt.h"

namespace tempest::bolts {

// Config of FileSink; the names are its YAML keys (docs/contracts.md, "Values and files").
struct FileSinkConfig {
  // The file written. The YAML loader resolves a relative path against the YAML file's folder.
  std::string path;
  // Written lines are flushed to the file (and their tuples acked) at least this often; 0 = after
  // every tuple (every batch, where the runtime delivers a batch at once).
  int64_t flush_ms = 100;
};

// Checks a config on its own: `path` set, `flush_ms` >= 0. Throws std::invalid_argument.
void ValidateFileSinkConfig(const FileSinkConfig& config);

// Writes each tuple it receives as one JSON object line, keys = the tuple's field names in field
// order (topology/json.h: AppendJsonObject). Task 0 truncates the file in Prepare (every task
// prepares before any spout emits), unless its worker was restarted within the run (then it
// continues the file); every task then appends whole lines with O_APPEND, so the
// lines of several tasks never interleave. Lines are buffered and written when flush_ms has passed
// (checked on every tuple and on the bolt's tick), at end-of-stream and in Cleanup; a tuple is
// acked only once its line has been written. A failed write fails the tuples and reports it,
// and is cut off again: each flush appends under an exclusive flock and, if the write fails
// part-way (a full disk), truncates the file back to where the flush began, so the file never
// holds a partial line (the tuples replay whole). A partial last line that a sink killed while
// writing left is cut off before the next append, for the same reason.
// Prepare throws std::runtime_error naming the path if the file cannot be opened. No output
// streams. Takes a batch at a time: lines are written from the rows' cells, and the flush
// interval is checked once per batch. One instance per task, used by that task's thread only.
class FileSink final : public topology::BatchBolt {
 public:
  using Clock = std::chrono::steady_clock;

  // `now` is the time source of the flush interval (tests inject a fake one).
  explicit FileSink(FileSinkConfig config, std::function<Clock::time_point()> now = Clock::now);
  ~FileSink() override;
  FileSink(const FileSink&) = delete;
  FileSink& operator=(const FileSink&) = delete;

  void Prepare(const topology::TopologyContext& context,
               topology::OutputCollector& collector) override;
  void Execute(const topology::Tuple& input) override;
  void ExecuteBatch(const topology::RowBatch& rows, topology::BatchCollector& out) override;
  void OnEndOfStream() override;
  std::chrono::milliseconds TickInterval() const override;
  void OnTick() override;
  void Cleanup() override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

  // Writes the buffered lines and acks their tuples.
  void Flush();

 private:
  // Keeps what acking the line's tuple needs: its stream and ack anchors, not its values.
  void Hold(const topology::StreamSchema* schema, int source_task,
            std::span<const topology::AckMeta::Anchor> anchors);
  // Flushes when the buffer is full or flush_ms has passed.
  void FlushIfDue();
  void CloseFile() noexcept;

  FileSinkConfig config_;
  std::function<Clock::time_point()> now_;
  topology::OutputCollector* out_ = nullptr;
  int fd_ = -1;
  bool readable_ = false;                 // fd_ was opened for reading too
  std::string buffer_;                    // whole lines not yet written
  std::vector<topology::Tuple> unacked_;  // ack handles of the buffered lines' tuples
  Clock::time_point last_flush_{};
};

}  // namespace tempest::bolts
