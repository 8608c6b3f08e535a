#include "bolts/windowing/packed_windowed_bolt.h"

namespace tempest::bolts {

topology::Tuple PackedWindow::Unpack(const HeldRow& r) const {
  const PackedRow row = Row(r);
  const RowOrigin& o = Origin(row.origin);
  topology::Values values;
  row.UnpackValues(values);
  return topology::Tuple(o.schema, o.task, std::move(values));
}

}  // namespace tempest::bolts
