#pragma once

#include <string_view>

namespace tempest::topology {

// The gauges a spout reading a finite input reports (ReportGauge), for the progress displays:
// the bytes read so far and the input's size. FileSpout reports them; so may a spout of yours.
inline constexpr std::string_view kInputBytesReadGauge = "input bytes read";
inline constexpr std::string_view kInputBytesGauge = "input bytes";

}  // namespace tempest::topology
