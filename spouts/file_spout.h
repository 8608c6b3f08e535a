#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "topology/spout.h"

namespace tempest::spouts {

// Config of FileSpout; the names are its YAML keys (docs/contracts.md, "Values and files"). Either
// `fields` (one stream, `stream`) or `streams` with `stream_field` (several streams from one file).
struct FileSpoutConfig {
  // The file to read. The YAML loader resolves a relative path against the YAML file's folder.
  std::string path;
  // Single-stream form: the emitted fields, in this order (a line's missing members are null).
  std::vector<std::string> fields;
  // "jsonl" or "csv"; empty: from the extension (".csv", any case, is csv, anything else jsonl).
  std::string format;
  // Single-stream form: the stream every line is emitted on.
  std::string stream = "default";
  // Multi-stream form: each stream and its fields, in declaration order.
  std::vector<std::pair<std::string, std::vector<std::string>>> streams;
  // Multi-stream form: the field whose (string) value names the stream a line goes to; it is not
  // emitted unless that stream lists it.
  std::string stream_field;
  // A line (a CSV record: all its lines) longer than this is reported, skipped and counted; only
  // this much of it is ever held.
  int64_t max_line_bytes = kDefaultMaxLineBytes;
  static constexpr int64_t kDefaultMaxLineBytes = 16 << 20;
};

// The formats FileSpout reads.
enum class FileFormat { kJsonl, kCsv };

// Checks a config on its own (not the file): `path` set; exactly one of `fields` and `streams`;
// `stream_field` given exactly when `streams` is; a known `format`; non-empty, distinct stream
// names; no field named twice in one stream. Throws std::invalid_argument naming the key at fault.
void ValidateFileSpoutConfig(const FileSpoutConfig& config);

// The format a (valid) config reads: `format`, else derived from the path's extension.
FileFormat ResolveFileFormat(const FileSpoutConfig& config);

// Emits one tuple per line of a JSON-lines or CSV file (docs/contracts.md, "Values and files"),
// reading it incrementally.
// - jsonl: each line is a JSON object; its members are taken in the order of the stream's fields
//   (missing → null).
// - csv: the first record is the header naming the columns; every field must be a column (else
//   Open throws). Cells are RFC 4180 (quoted cells may span lines) and typed as TypeCsvCell says
//   (int, else double, else string; empty → null). A short row's missing cells are null.
// - multi-stream: each line goes to the stream its `stream_field` names.
// Every tuple is tracked with message id = its (first) line number, 1-based, as an int. A line
// that is not valid JSON, not an object, names no or an unknown stream, or (csv) has more cells
// than the header or broken quoting is reported via ReportError as "PATH:LINE: what" and skipped
// and counted (skipped_lines()); blank lines are skipped silently. Failed ids are re-emitted,
// before any new line, from the emitted-but-unacked lines kept in memory. NextTuple is kExhausted
// once the file is read and no replay is queued. With parallelism p, task i takes the lines whose
// number n has (n - 1) % p == i, so the tasks together emit the file exactly once.
// Construction validates the config (std::invalid_argument); Open throws std::runtime_error naming
// the path if the file cannot be read. Like every spout, one task's instance is used by that
// task's thread only.
class FileSpout final : public topology::Spout {
 public:
  explicit FileSpout(FileSpoutConfig config);
  ~FileSpout() override;

  void Open(const topology::TopologyContext& context,
            topology::SpoutOutputCollector& collector) override;
  topology::NextResult NextTuple() override;
  void Ack(const topology::Value& message_id) override;
  void Fail(const topology::Value& message_id) override;
  void Close() override;
  void DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const override;

  // Lines reported as bad and skipped so far.
  uint64_t skipped_lines() const noexcept;
  // Lines emitted and not yet acked: held in memory for a possible replay.
  std::size_t pending_lines() const noexcept;

 private:
  struct State;
  FileSpoutConfig config_;
  std::unique_ptr<State> state_;
};

}  // namespace tempest::spouts
