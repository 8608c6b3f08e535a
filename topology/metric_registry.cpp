#include <fmt/format.h>

#include <stdexcept>

#include "tempest/metrics.h"

namespace tempest::topology {

struct MetricRegistry::Entry {
  std::string name;
  MetricReading::Kind kind;
  Counter counter;
  Meter meter;
  Gauge gauge;
  Histogram histogram;
};

MetricRegistry::MetricRegistry() = default;
MetricRegistry::~MetricRegistry() = default;

const char* MetricReading::KindName(Kind kind) noexcept {
  switch (kind) {
    case Kind::kCounter:
      return "counter";
    case Kind::kMeter:
      return "meter";
    case Kind::kGauge:
      return "gauge";
    case Kind::kHistogram:
      return "histogram";
  }
  return "metric";
}

MetricRegistry::Entry& MetricRegistry::Find(std::string_view name, MetricReading::Kind kind) {
  std::lock_guard lock(mu_);
  for (const std::unique_ptr<Entry>& e : entries_) {
    if (e->name != name) continue;
    if (e->kind != kind) {
      throw std::invalid_argument(fmt::format("metric '{}' is already registered as a {}, not a {}",
                                              name, MetricReading::KindName(e->kind),
                                              MetricReading::KindName(kind)));
    }
    return *e;
  }
  if (name.empty()) throw std::invalid_argument("a metric needs a name");
  entries_.push_back(std::make_unique<Entry>());
  entries_.back()->name = std::string(name);
  entries_.back()->kind = kind;
  return *entries_.back();
}

Counter& MetricRegistry::RegisterCounter(std::string_view name) {
  return Find(name, MetricReading::Kind::kCounter).counter;
}
Meter& MetricRegistry::RegisterMeter(std::string_view name) {
  return Find(name, MetricReading::Kind::kMeter).meter;
}
Gauge& MetricRegistry::RegisterGauge(std::string_view name) {
  return Find(name, MetricReading::Kind::kGauge).gauge;
}
Histogram& MetricRegistry::RegisterHistogram(std::string_view name) {
  return Find(name, MetricReading::Kind::kHistogram).histogram;
}

std::vector<MetricReading> MetricRegistry::Read() const {
  std::lock_guard lock(mu_);
  std::vector<MetricReading> out;
  out.reserve(entries_.size());
  for (const std::unique_ptr<Entry>& e : entries_) {
    MetricReading r;
    r.name = e->name;
    r.kind = e->kind;
    switch (e->kind) {
      case MetricReading::Kind::kCounter:
        r.value = e->counter.GetCount();
        break;
      case MetricReading::Kind::kMeter:
        r.value = static_cast<int64_t>(e->meter.GetCount());
        break;
      case MetricReading::Kind::kGauge:
        r.value = e->gauge.GetValue();
        break;
      case MetricReading::Kind::kHistogram:
        r.value = static_cast<int64_t>(e->histogram.GetSum());
        for (int b = 0; b < Histogram::kBuckets; ++b) {
          if (const uint64_t n = e->histogram.GetCount(b); n != 0) {
            r.buckets.push_back(static_cast<uint64_t>(b));
            r.buckets.push_back(n);
          }
        }
        break;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace tempest::topology
