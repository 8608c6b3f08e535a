#pragma once

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>

namespace tempest::bolts {

// Where a held row is: its chunk and its offset in it. Trivially copyable, 4 bytes (a window
// event with its time stamp and mark then takes 16).
struct HeldRow {
  uint16_t chunk = 0;
  uint16_t offset = 0;
};

// Rows of bytes kept back to back in 64 KiB chunks, each chunk freed when its last row is
// released. A window releases its rows roughly in arrival order, so a chunk empties soon after
// the window moves past it, and a row costs its bytes (not a heap block with its header and
// rounding). One spare chunk is kept, so a tumbling window does not go back to malloc per chunk.
// A row larger than a chunk gets a chunk of its own. At most 65,536 chunks (4 GiB of rows of up
// to a chunk each) are held at once. Single-threaded.
//
// Constructed with a smaller first chunk size, chunks start at that size and double, up to
// kChunkBytes, as the bytes held grow (a new chunk is at least a sixteenth of the chunk bytes in
// use): a state holding a few kilobytes does not pay for 64 KiB chunks.
class RowArena {
 public:
  static constexpr uint32_t kChunkBytes = 64 * 1024;

  RowArena() = default;
  // `first_chunk_bytes`: a power of two up to kChunkBytes.
  explicit RowArena(uint32_t first_chunk_bytes) noexcept : first_chunk_(first_chunk_bytes) {}
  RowArena(const RowArena&) = delete;
  RowArena& operator=(const RowArena&) = delete;
  ~RowArena() {
    for (Chunk& c : chunks_) std::free(c.data);
    std::free(spare_);
  }

  // `n` bytes, uninitialised, valid until Release.
  std::pair<HeldRow, uint8_t*> Allocate(std::size_t n) {
    uint32_t slot = current_;
    if (n > kChunkBytes) {
      slot = NewChunk(n);  // its own, never the one being filled
    } else if (current_ == kNone || chunks_[current_].cap - chunks_[current_].used < n) {
      if (current_ != kNone && chunks_[current_].live == 0) Recycle(current_);
      uint32_t size = NextChunkBytes();
      while (size < n) size *= 2;
      slot = current_ = NewChunk(size);
    }
    Chunk& c = chunks_[slot];
    const HeldRow at{static_cast<uint16_t>(slot), static_cast<uint16_t>(c.used)};
    uint8_t* data = c.data + c.used;
    c.used += static_cast<uint32_t>(n);
    ++c.live;
    return {at, data};
  }

  // Gives back the end of the last row allocated, of `allocated` bytes, which used only `used`:
  // a row can be written into a bound on its size, in one pass.
  void Trim(HeldRow r, std::size_t allocated, std::size_t used) noexcept {
    Chunk& c = chunks_[r.chunk];
    if (r.chunk == current_ && r.offset + allocated == c.used) {
      c.used = static_cast<uint32_t>(r.offset + used);
    }
  }

  // The free bytes of the chunk being filled (none before the first): a row of unknown size is
  // written there and kept with Keep, with no bound on its size worked out first.
  std::pair<uint8_t*, std::size_t> Tail() noexcept {
    if (current_ == kNone) return {nullptr, 0};
    Chunk& c = chunks_[current_];
    return {c.data + c.used, c.cap - c.used};
  }
  // Keeps the first `n` bytes of Tail() (n: at most its size) as a row.
  HeldRow Keep(std::size_t n) noexcept {
    Chunk& c = chunks_[current_];
    const HeldRow at{static_cast<uint16_t>(current_), static_cast<uint16_t>(c.used)};
    c.used += static_cast<uint32_t>(n);
    ++c.live;
    return at;
  }

  uint8_t* Data(HeldRow r) noexcept { return chunks_[r.chunk].data + r.offset; }
  const uint8_t* Data(HeldRow r) const noexcept { return chunks_[r.chunk].data + r.offset; }

  void Release(HeldRow r) noexcept {
    Chunk& c = chunks_[r.chunk];
    if (--c.live > 0) return;
    if (r.chunk == current_) {
      c.used = 0;  // empty: fill it again from the start
      return;
    }
    Recycle(r.chunk);
  }

  // Chunks holding rows (for tests and gauges).
  std::size_t chunks_in_use() const noexcept { return chunks_.size() - free_slots_.size(); }

 private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
  struct Chunk {
    uint8_t* data = nullptr;
    uint32_t used = 0;
    uint32_t cap = 0;
    uint32_t live = 0;  // rows not released
  };

  // The size of the next chunk to fill.
  uint32_t NextChunkBytes() const noexcept {
    uint32_t size = first_chunk_;
    while (size < kChunkBytes && 16 * std::size_t{size} < bytes_in_use_) size *= 2;
    return size;
  }

  // A chunk of `cap` bytes (a chunk size, or a large row's size); returns its slot.
  uint32_t NewChunk(std::size_t size) {
    if (size > std::numeric_limits<uint32_t>::max()) throw std::length_error("a row over 4 GiB");
    const auto cap = static_cast<uint32_t>(size);
    uint8_t* data = nullptr;
    if (spare_ != nullptr && spare_cap_ != cap && cap <= kChunkBytes) {
      std::free(std::exchange(spare_, nullptr));  // outgrown
    }
    if (spare_ != nullptr && spare_cap_ == cap) {
      data = std::exchange(spare_, nullptr);
    } else {
      data = static_cast<uint8_t*>(std::malloc(cap));
      if (data == nullptr) throw std::bad_alloc();
    }
    uint32_t slot = 0;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      if (chunks_.size() > std::numeric_limits<uint16_t>::max()) {
        std::free(data);
        throw std::length_error(
            "a packed window holds at most 65,536 chunks of rows (4 GiB of rows)");
      }
      slot = static_cast<uint32_t>(chunks_.size());
      chunks_.emplace_back();
      free_slots_.reserve(chunks_.size());  // Recycle (noexcept) never allocates
    }
    chunks_[slot] = Chunk{data, 0, cap, 0};
    bytes_in_use_ += cap;
    return slot;
  }

  void Recycle(uint32_t slot) noexcept {
    Chunk& c = chunks_[slot];
    bytes_in_use_ -= c.cap;
    if (c.cap <= kChunkBytes && spare_ == nullptr) {
      spare_ = c.data;
      spare_cap_ = c.cap;
    } else {
      std::free(c.data);
    }
    c = Chunk{};
    if (slot == current_) current_ = kNone;
    free_slots_.push_back(slot);
  }

  std::vector<Chunk> chunks_;
  std::vector<uint32_t> free_slots_;
  uint32_t current_ = kNone;
  uint8_t* spare_ = nullptr;
  uint32_t spare_cap_ = 0;
  uint32_t first_chunk_ = kChunkBytes;
  std::size_t bytes_in_use_ = 0;  // the caps of the chunks holding rows
};

}  // namespace tempest::bolts
