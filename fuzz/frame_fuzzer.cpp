// libFuzzer target: DecodeFrame on any bytes (the tcp/ipc receive path). It must never crash,
// throw or read out of bounds: a bad frame is a status and a one-line error.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "../tests/support/test_components.h"
#include "topology/topology_builder.h"
#include "transport/frame.h"
#include "transport/stream_table.h"

namespace {

// A topology of two streams with different fields, so stream numbers 0 and 1 decode.
const tempest::transport::StreamTable& Streams() {
  static const auto* table = [] {
    using tempest::topology::Fields;
    tempest::topology::TopologyBuilder b("fuzz");
    b.SetSpout("s", [] {
      return std::make_unique<tempest::testing::ListSpout>(
          Fields{"id", "word"}, std::vector<tempest::topology::Values>{}, "default");
    });
    b.SetBolt("b", [] {
       return std::make_unique<tempest::testing::LambdaBolt>(
           std::map<std::string, Fields>{{"out", Fields{"n"}}},
           [](const tempest::topology::Tuple&, tempest::topology::OutputCollector&,
              const tempest::topology::TopologyContext&) {});
     }).ShuffleGrouping("s");
    return new tempest::transport::StreamTable(b.Build());
  }();
  return *table;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  tempest::transport::Frame frame;
  std::string error;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  tempest::transport::FrameHeader header;
  (void)tempest::transport::PeekFrameHeader(bytes, header, &error);
  (void)tempest::transport::DecodeFrame(bytes, Streams(), frame, &error);
  return 0;
}
