// Word count, the "hello world" of stream processing, written against Tempest's C++ API:
//
//   sentences (spout) --shuffle--> split (x2) --fields(word)--> count (x2) --global--> report
//
// The spout reads a bundled text (repeated --repeat times) and ends by itself; end-of-stream
// then drains every bolt, and the report bolt prints the final counts. With --workers N the same
// program runs as a supervisor and N worker processes of itself (docs/multi-process.md).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tempest/tempest.h"

using namespace tempest;

namespace {

// Emits each line of a text file as a sentence, `repeat` times over, then says it is exhausted.
class SentenceSpout : public Spout {
 public:
  SentenceSpout(std::string path, int repeat) : path_(std::move(path)), repeat_(repeat) {}

  void Open(const TopologyContext&, SpoutOutputCollector& collector) override {
    out_ = &collector;
    std::ifstream in(path_);
    if (!in) throw std::runtime_error("cannot read " + path_);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) lines_.push_back(line);
    }
  }

  NextResult NextTuple() override {
    if (lines_.empty() || round_ == repeat_) return NextResult::kExhausted;
    out_->Emit({lines_[next_]}, static_cast<int64_t>(emitted_++));
    if (++next_ == lines_.size()) {
      next_ = 0;
      ++round_;
    }
    return NextResult::kEmitted;
  }

  void DeclareOutputFields(OutputFieldsDeclarer& declarer) const override {
    declarer.Declare({"sentence"});
  }

 private:
  std::string path_;
  int repeat_;
  SpoutOutputCollector* out_ = nullptr;
  std::vector<std::string> lines_;
  std::size_t next_ = 0;
  int round_ = 0;
  uint64_t emitted_ = 0;
};

// Splits a sentence into lower-case words (letters and apostrophes).
class SplitSentence : public BasicBolt {
 public:
  void Execute(const Tuple& input, BasicOutputCollector& collector) override {
    const std::string& s = input.GetString(0);
    std::string word;
    for (char c : s) {
      if (std::isalpha(static_cast<unsigned char>(c)) || c == '\'') {
        word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
      } else if (!word.empty()) {
        collector.Emit({std::move(word)});
        word.clear();
      }
    }
    if (!word.empty()) collector.Emit({std::move(word)});
  }
  void DeclareOutputFields(OutputFieldsDeclarer& declarer) const override {
    declarer.Declare({"word"});
  }
};

// Keeps a running count per word (fields grouping sends each word to one task) and emits it.
class WordCount : public BasicBolt {
 public:
  void Execute(const Tuple& input, BasicOutputCollector& collector) override {
    const std::string& word = input.GetString(0);
    int64_t& n = counts_[word];
    collector.Emit({word, ++n});
  }
  void DeclareOutputFields(OutputFieldsDeclarer& declarer) const override {
    declarer.Declare({"word", "count"});
  }

 private:
  std::unordered_map<std::string, int64_t> counts_;
};

// Keeps the latest count of every word; at end-of-stream prints the top words.
class ReportBolt : public BasicBolt {
 public:
  explicit ReportBolt(std::size_t top) : top_(top) {}

  void Execute(const Tuple& input, BasicOutputCollector&) override {
    latest_[input.GetString(0)] = input.GetInt(1);
  }
  void OnEndOfStream(OutputCollector&) override {
    std::vector<std::pair<std::string, int64_t>> sorted(latest_.begin(), latest_.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    int64_t total = 0;
    for (const auto& [w, n] : sorted) total += n;
    std::printf("%lld words, %zu distinct. Top %zu:\n", static_cast<long long>(total),
                sorted.size(), std::min(top_, sorted.size()));
    for (std::size_t i = 0; i < sorted.size() && i < top_; ++i) {
      std::printf("  %-12s %9lld\n", sorted[i].first.c_str(),
                  static_cast<long long>(sorted[i].second));
    }
    std::fflush(stdout);
  }
  void DeclareOutputFields(OutputFieldsDeclarer&) const override {}

 private:
  std::size_t top_;
  std::map<std::string, int64_t> latest_;
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Tempest word count: sentences -> split -> count -> report, in one process or N."};
  app.footer(
      "Tempest's own flags: --workers N (run as N worker processes of this program), "
      "--transport ipc|tcp, --quiet, --log-level LEVEL, --log-file PATH.");
  app.allow_extras();  // Tempest's flags, read by RunTopology
  std::string text = TEMPEST_WORD_COUNT_TEXT;
  int repeat = 2000;
  std::size_t top = 15;
  int split_parallelism = 2;
  int count_parallelism = 2;
  app.add_option("--text", text, "Text file to count, one sentence per line")
      ->capture_default_str();
  app.add_option("--repeat", repeat, "How many times the spout replays the text")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--top", top, "How many words to print")->capture_default_str();
  app.add_option("--split-parallelism", split_parallelism, "Tasks of the split bolt")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--count-parallelism", count_parallelism, "Tasks of the count bolt")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  CLI11_PARSE(app, argc, argv);

  TopologyBuilder builder("word-count");
  builder.SetSpout("sentences", [=] { return std::make_unique<SentenceSpout>(text, repeat); });
  builder
      .SetBolt(
          "split", [] { return std::make_unique<SplitSentence>(); }, split_parallelism)
      .ShuffleGrouping("sentences");
  builder
      .SetBolt(
          "count", [] { return std::make_unique<WordCount>(); }, count_parallelism)
      .FieldsGrouping("split", {"word"});
  builder.SetBolt("report", [=] { return std::make_unique<ReportBolt>(top); })
      .GlobalGrouping("count");
  // In one process, or with --workers N as a supervisor and N worker processes of this program.
  return tempest::RunTopology(argc, argv, builder);
}
