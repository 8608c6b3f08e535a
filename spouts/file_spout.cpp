#include "spouts/file_spout.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <unordered_map>

#include "spouts/csv.h"
#include "topology/input_gauges.h"
#include "topology/json.h"

namespace tempest::spouts {

using topology::NextResult;
using topology::Value;
using topology::Values;
using topology::ValueType;

namespace {

// Lines one NextTuple call reads at most (skipped ones included) before returning to the
// executor, so that a long run of bad or foreign lines cannot hold the task's thread.
constexpr int kMaxLinesPerCall = 1024;

std::string_view JsonKind(const Value& v) {
  switch (v.type()) {
    case ValueType::kNull:
      return "null";
    case ValueType::kBool:
      return "a boolean";
    case ValueType::kInt:
    case ValueType::kDouble:
      return "a number";
    case ValueType::kString:
      return "a string";
    case ValueType::kBytes:
      return "bytes";
    case ValueType::kList:
      return "an array";
    case ValueType::kMap:
      return "an object";
  }
  return "?";
}

bool IsBlank(std::string_view s) { return s.find_first_not_of(" \t\r") == std::string_view::npos; }

void CheckFieldList(std::string_view key, const std::vector<std::string>& fields) {
  std::set<std::string_view> seen;
  for (const std::string& f : fields) {
    if (f.empty()) throw std::invalid_argument(fmt::format("`{}` has an empty field name", key));
    if (!seen.insert(f).second) {
      throw std::invalid_argument(fmt::format("`{}` names field \"{}\" twice", key, f));
    }
  }
}

bool EndsWithCsv(std::string_view path) {
  if (path.size() < 4) return false;
  std::string ext(path.substr(path.size() - 4));
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".csv";
}

// What reading one record did.
enum class Step { kEmitted, kSkipped, kEnd };

}  // namespace

void ValidateFileSpoutConfig(const FileSpoutConfig& c) {
  if (c.path.empty()) throw std::invalid_argument("`path` is required: the file to read");
  if (!c.format.empty() && c.format != "jsonl" && c.format != "csv") {
    throw std::invalid_argument(fmt::format("`format` must be jsonl or csv, not \"{}\"", c.format));
  }
  const bool has_fields = !c.fields.empty();
  const bool has_streams = !c.streams.empty();
  if (has_fields && has_streams) {
    throw std::invalid_argument("`fields` and `streams` are alternatives: give one, not both");
  }
  if (!has_fields && !has_streams) {
    throw std::invalid_argument(
        "give `fields` (the emitted fields) or `streams` (each stream's fields) with "
        "`stream_field`");
  }
  if (has_streams && c.stream_field.empty()) {
    throw std::invalid_argument(
        "`streams` needs `stream_field`: the field whose value names each line's stream");
  }
  if (!has_streams && !c.stream_field.empty()) {
    throw std::invalid_argument(
        "`stream_field` is only used with `streams`; with `fields` every line goes to `stream`");
  }
  if (has_fields) {
    if (c.stream.empty()) throw std::invalid_argument("`stream` must not be empty");
    CheckFieldList("fields", c.fields);
  }
  std::set<std::string_view> names;
  for (const auto& [name, fields] : c.streams) {
    if (name.empty()) throw std::invalid_argument("`streams` has a stream with an empty name");
    if (!names.insert(name).second) {
      throw std::invalid_argument(fmt::format("`streams` declares stream \"{}\" twice", name));
    }
    CheckFieldList(fmt::format("streams.{}", name), fields);
  }
}

FileFormat ResolveFileFormat(const FileSpoutConfig& config) {
  if (config.format == "csv") return FileFormat::kCsv;
  if (config.format == "jsonl") return FileFormat::kJsonl;
  return EndsWithCsv(config.path) ? FileFormat::kCsv : FileFormat::kJsonl;
}

struct FileSpout::State {
  struct Stream {
    std::string name;
    std::vector<std::string> fields;
    std::vector<std::size_t> columns;  // csv: the column of each field
  };
  struct Pending {
    std::size_t stream = 0;
    Values values;
    bool queued = false;  // waiting in `replay`
  };

  const FileSpoutConfig* config = nullptr;
  topology::SpoutOutputCollector* out = nullptr;
  FileFormat format = FileFormat::kJsonl;
  bool multi = false;
  std::vector<Stream> streams;  // one in the single-stream form
  std::ifstream in;
  int64_t line = 0;   // physical lines read so far
  uint64_t size = 0;  // the file's size at Open; 0: not a regular file (a pipe), no input gauges
  uint64_t bytes_read = 0;
  uint64_t next_report = 0;  // bytes_read at which to report the input gauges again
  int64_t index = 0;
  int64_t stride = 1;
  bool eof = false;
  uint64_t skipped = 0;
  std::unordered_map<int64_t, Pending> pending;
  std::deque<int64_t> replay;
  // csv
  std::size_t header_columns = 0;
  std::size_t stream_column = 0;
  // scratch, reused across lines
  std::string text;
  std::string more;
  bool too_long = false;         // the last line read was longer than max_line_bytes
  bool record_too_long = false;  // so was the last CSV record
  std::vector<std::string> cells;

  bool Owns(int64_t n) const { return (n - 1) % stride == index; }

  // How much of the file is read, as the input gauge of the progress displays (Open reports the
  // size): at Open, after every 1/256 of the file (at least 4 KiB: ReportGauge takes a lock), and
  // at the end.
  void ReportInput() {
    next_report = bytes_read + std::max<uint64_t>(size / 256, 4096);
    if (size == 0) return;
    out->ReportGauge(topology::kInputBytesReadGauge, eof ? size : std::min(bytes_read, size));
  }

  void Bad(int64_t n, std::string_view what) {
    ++skipped;
    out->ReportError(fmt::format("{}:{}: {}", config->path, n, what));
  }

  // The next physical line without its terminator ("\n" or "\r\n"); false at the end. Of a line
  // longer than max_line_bytes only that much is kept, and `too_long` is set.
  bool ReadLine(std::string& s) {
    s.clear();
    std::streambuf& buf = *in.rdbuf();
    constexpr int kEof = std::char_traits<char>::eof();
    int c = buf.sbumpc();
    if (c == kEof) return false;
    const auto limit = static_cast<std::size_t>(config->max_line_bytes);
    std::size_t length = 0;
    for (; c != kEof && c != '\n'; c = buf.sbumpc()) {
      if (++length <= limit) s.push_back(static_cast<char>(c));
    }
    too_long = length > limit;
    bytes_read += length + (c == '\n' ? 1 : 0);
    ++line;
    if (bytes_read >= next_report) ReportInput();
    if (!s.empty() && s.back() == '\r') s.pop_back();
    if (line == 1 && s.starts_with("\xEF\xBB\xBF")) s.erase(0, 3);  // UTF-8 byte order mark
    return true;
  }

  std::optional<std::size_t> FindStream(std::string_view name) const {
    for (std::size_t i = 0; i < streams.size(); ++i) {
      if (streams[i].name == name) return i;
    }
    return std::nullopt;
  }

  std::string StreamNames() const {
    std::string names;
    for (const Stream& s : streams) {
      if (!names.empty()) names += ", ";
      names += s.name;
    }
    return names;
  }

  void Emit(int64_t n, std::size_t stream, Values values) {
    Values copy = values;
    pending.insert_or_assign(n, Pending{stream, std::move(values), false});
    out->Emit(streams[stream].name, std::move(copy), Value(n));
  }

  // A line (or CSV record) past max_line_bytes: reported by the task that owns it.
  Step TooLong(int64_t n) {
    if (Owns(n)) {
      Bad(n, fmt::format("longer than max_line_bytes ({} bytes)", config->max_line_bytes));
    }
    return Step::kSkipped;
  }

  Step NextJsonl() {
    if (!ReadLine(text)) return Step::kEnd;
    if (too_long) return TooLong(line);
    const int64_t n = line;
    if (!Owns(n) || IsBlank(text)) return Step::kSkipped;
    Value doc;
    try {
      doc = topology::ParseJson(text);
    } catch (const std::invalid_argument& e) {
      Bad(n, e.what());
      return Step::kSkipped;
    }
    if (doc.type() != ValueType::kMap) {
      Bad(n, fmt::format("expected a JSON object, found {}", JsonKind(doc)));
      return Step::kSkipped;
    }
    std::size_t stream = 0;
    if (multi) {
      const Value* name = doc.Find(config->stream_field);
      if (name == nullptr) {
        Bad(n, fmt::format("no member \"{}\" naming the line's stream", config->stream_field));
        return Step::kSkipped;
      }
      if (!name->IsString()) {
        Bad(n,
            fmt::format("member \"{}\" names the line's stream, so it must be a string; found {}",
                        config->stream_field, JsonKind(*name)));
        return Step::kSkipped;
      }
      const std::optional<std::size_t> s = FindStream(name->AsString());
      if (!s) {
        Bad(n, fmt::format("unknown stream \"{}\" in \"{}\" (streams: {})", name->AsString(),
                           config->stream_field, StreamNames()));
        return Step::kSkipped;
      }
      stream = *s;
    }
    Values values;
    values.reserve(streams[stream].fields.size());
    for (const std::string& f : streams[stream].fields) {
      const Value* v = doc.Find(f);
      values.push_back(v != nullptr ? *v : Value());
    }
    Emit(n, stream, std::move(values));
    return Step::kEmitted;
  }

  // Reads the next non-blank CSV record into `cells` (joining the lines of quoted line breaks).
  // Returns its first line's number, or nullopt at the end; *status says how it parsed.
  std::optional<int64_t> ReadCsvRecord(CsvParseResult* result) {
    do {
      if (!ReadLine(text)) return std::nullopt;
    } while (text.empty() && !too_long);
    const int64_t n = line;
    record_too_long = too_long;
    if (record_too_long) return n;
    *result = ParseCsvRecord(text, cells);
    while (result->status == CsvStatus::kUnterminated) {
      if (!ReadLine(more)) break;
      if (too_long ||
          text.size() + 1 + more.size() > static_cast<std::size_t>(config->max_line_bytes)) {
        record_too_long = true;
        break;
      }
      text += '\n';
      text += more;
      *result = ParseCsvRecord(text, cells);
    }
    return n;
  }

  static std::string DescribeCsvProblem(const CsvParseResult& r) {
    switch (r.status) {
      case CsvStatus::kOk:
        return "";
      case CsvStatus::kUnterminated:
        return "a quoted cell is not closed before the end of the file";
      case CsvStatus::kTextAfterQuote:
        return fmt::format("unexpected text after a closing quote (character {})", r.position);
    }
    return "";
  }

  void ReadCsvHeader() {
    CsvParseResult r;
    const std::optional<int64_t> n = ReadCsvRecord(&r);
    if (!n) {  // an empty file: nothing to emit
      eof = true;
      return;
    }
    if (record_too_long) {
      throw std::runtime_error(
          fmt::format("{}:{}: bad CSV header: longer than max_line_bytes ({} "
                      "bytes)",
                      config->path, *n, config->max_line_bytes));
    }
    if (r.status != CsvStatus::kOk) {
      throw std::runtime_error(
          fmt::format("{}:{}: bad CSV header: {}", config->path, *n, DescribeCsvProblem(r)));
    }
    header_columns = cells.size();
    std::unordered_map<std::string, std::size_t> column;
    std::set<std::string> repeated;
    for (std::size_t i = 0; i < cells.size(); ++i) {
      if (!column.emplace(cells[i], i).second) repeated.insert(cells[i]);
    }
    const auto resolve = [&](const std::string& field) {
      if (repeated.contains(field)) {
        throw std::runtime_error(
            fmt::format("{}:{}: column \"{}\" appears more than once in the "
                        "CSV header",
                        config->path, *n, field));
      }
      const auto it = column.find(field);
      if (it == column.end()) {
        throw std::runtime_error(
            fmt::format("{}:{}: field \"{}\" is not a column of the CSV "
                        "header (columns: {})",
                        config->path, *n, field, fmt::join(cells, ", ")));
      }
      return it->second;
    };
    for (Stream& s : streams) {
      for (const std::string& f : s.fields) s.columns.push_back(resolve(f));
    }
    if (multi) stream_column = resolve(config->stream_field);
  }

  Step NextCsv() {
    CsvParseResult r;
    const std::optional<int64_t> found = ReadCsvRecord(&r);
    if (!found) return Step::kEnd;
    const int64_t n = *found;
    if (record_too_long) return TooLong(n);
    if (!Owns(n)) return Step::kSkipped;
    if (r.status != CsvStatus::kOk) {
      Bad(n, DescribeCsvProblem(r));
      return Step::kSkipped;
    }
    if (cells.size() > header_columns) {
      Bad(n, fmt::format("{} cells, but the header has {} columns", cells.size(), header_columns));
      return Step::kSkipped;
    }
    std::size_t stream = 0;
    if (multi) {
      const std::string* name = stream_column < cells.size() ? &cells[stream_column] : nullptr;
      if (name == nullptr || name->empty()) {
        Bad(n, fmt::format("no stream named in column \"{}\"", config->stream_field));
        return Step::kSkipped;
      }
      const std::optional<std::size_t> s = FindStream(*name);
      if (!s) {
        Bad(n, fmt::format("unknown stream \"{}\" in \"{}\" (streams: {})", *name,
                           config->stream_field, StreamNames()));
        return Step::kSkipped;
      }
      stream = *s;
    }
    Values values;
    values.reserve(streams[stream].columns.size());
    for (const std::size_t c : streams[stream].columns) {
      values.push_back(c < cells.size() ? TypeCsvCell(cells[c]) : Value());
    }
    Emit(n, stream, std::move(values));
    return Step::kEmitted;
  }
};

FileSpout::FileSpout(FileSpoutConfig config) : config_(std::move(config)) {
  ValidateFileSpoutConfig(config_);
}

FileSpout::~FileSpout() = default;

void FileSpout::Open(const topology::TopologyContext& context,
                     topology::SpoutOutputCollector& collector) {
  auto state = std::make_unique<State>();
  State& s = *state;
  s.config = &config_;
  s.out = &collector;
  s.format = ResolveFileFormat(config_);
  s.multi = !config_.streams.empty();
  if (s.multi) {
    for (const auto& [name, fields] : config_.streams) s.streams.push_back({name, fields, {}});
  } else {
    s.streams.push_back({config_.stream, config_.fields, {}});
  }
  s.index = context.GetThisTaskIndex();
  s.stride = std::max<int64_t>(1, static_cast<int64_t>(context.GetThisComponentTasks().size()));

  std::error_code ec;
  if (std::filesystem::is_directory(config_.path, ec)) {
    throw std::runtime_error(fmt::format("cannot read {}: it is a directory", config_.path));
  }
  // A device such as /dev/zero never ends and may never hold a line break.
  if (std::filesystem::is_character_file(config_.path, ec)) {
    throw std::runtime_error(fmt::format(
        "cannot read {}: it is a character device (FileSpout reads files and named pipes)",
        config_.path));
  }
  errno = 0;
  s.in.open(config_.path, std::ios::in | std::ios::binary);
  if (!s.in.is_open()) {
    const int err = errno;
    throw std::runtime_error(
        fmt::format("cannot open {}: {}", config_.path,
                    err != 0 ? std::generic_category().message(err) : std::string("open failed")));
  }
  if (std::filesystem::is_regular_file(config_.path, ec)) {
    s.size = static_cast<uint64_t>(std::filesystem::file_size(config_.path, ec));
    if (ec) s.size = 0;
  }
  if (s.size > 0) collector.ReportGauge(topology::kInputBytesGauge, s.size);
  s.ReportInput();
  if (s.format == FileFormat::kCsv) s.ReadCsvHeader();
  state_ = std::move(state);
}

NextResult FileSpout::NextTuple() {
  State& s = *state_;
  while (!s.replay.empty()) {
    const int64_t id = s.replay.front();
    s.replay.pop_front();
    const auto it = s.pending.find(id);
    if (it == s.pending.end() || !it->second.queued) continue;  // acked meanwhile
    it->second.queued = false;
    s.out->Emit(s.streams[it->second.stream].name, Values(it->second.values), Value(id));
    return NextResult::kEmitted;
  }
  if (s.eof) return NextResult::kExhausted;
  for (int k = 0; k < kMaxLinesPerCall; ++k) {
    switch (s.format == FileFormat::kCsv ? s.NextCsv() : s.NextJsonl()) {
      case Step::kEmitted:
        return NextResult::kEmitted;
      case Step::kSkipped:
        break;
      case Step::kEnd:
        s.eof = true;
        s.ReportInput();
        return NextResult::kExhausted;
    }
  }
  return NextResult::kIdle;
}

void FileSpout::Ack(const Value& message_id) {
  if (const int64_t* id = message_id.IfInt()) state_->pending.erase(*id);
}

void FileSpout::Fail(const Value& message_id) {
  const int64_t* id = message_id.IfInt();
  if (id == nullptr) return;
  const auto it = state_->pending.find(*id);
  if (it == state_->pending.end() || it->second.queued) return;
  it->second.queued = true;
  state_->replay.push_back(*id);
}

void FileSpout::Close() {
  if (state_) state_->in.close();
}

void FileSpout::DeclareOutputFields(topology::OutputFieldsDeclarer& declarer) const {
  if (config_.streams.empty()) {
    declarer.DeclareStream(config_.stream, topology::Fields(config_.fields));
    return;
  }
  for (const auto& [name, fields] : config_.streams) {
    declarer.DeclareStream(name, topology::Fields(fields));
  }
}

uint64_t FileSpout::skipped_lines() const noexcept { return state_ ? state_->skipped : 0; }

std::size_t FileSpout::pending_lines() const noexcept {
  return state_ ? state_->pending.size() : 0;
}

}  // namespace tempest::spouts
