// The word count's own bolts, built as a plugin (.so) that `tempest` loads from the topology
// file's `plugins:` list. It builds in this tree and, as an out-of-tree project, against an
// installed Tempest (find_package(Tempest)).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "tempest/tempest.h"

using namespace tempest;

namespace {

// Splits the `sentence` field into lower-case words (letters and apostrophes).
class SplitSentence : public BasicBolt {
 public:
  void Execute(const Tuple& input, BasicOutputCollector& collector) override {
    std::string word;
    for (char c : input.GetStringByField("sentence")) {
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

// Keeps the latest `count` of every `word`; at end-of-stream prints the `top` most frequent.
class TopWords : public BasicBolt {
 public:
  explicit TopWords(int64_t top) : top_(top) {}
  void Execute(const Tuple& input, BasicOutputCollector&) override {
    latest_[input.GetStringByField("word")] = input.GetIntByField("count");
  }
  void OnEndOfStream(OutputCollector&) override {
    std::vector<std::pair<std::string, int64_t>> sorted(latest_.begin(), latest_.end());
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) {
      return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    int64_t total = 0;
    for (const auto& entry : sorted) total += entry.second;
    std::printf("%lld words, %zu distinct. Top %lld:\n", static_cast<long long>(total),
                sorted.size(), static_cast<long long>(std::min<int64_t>(top_, sorted.size())));
    for (int64_t i = 0; i < top_ && i < static_cast<int64_t>(sorted.size()); ++i) {
      std::printf("  %-12s %9lld\n", sorted[i].first.c_str(),
                  static_cast<long long>(sorted[i].second));
    }
    std::fflush(stdout);
  }
  void DeclareOutputFields(OutputFieldsDeclarer&) const override {}

 private:
  int64_t top_;
  std::map<std::string, int64_t> latest_;
};

}  // namespace

TEMPEST_PLUGIN(registry) {
  registry.AddBolt<SplitSentence>("SplitSentence");  // no config keys
  registry.AddBolt("TopWords", [](ConfigReader& config, const ComponentContext&) -> BoltFactory {
    const int64_t top = config.IntAtLeast("top", 10, 1);
    return [top] { return AdaptBasicBolt(std::make_unique<TopWords>(top)); };
  });
}
