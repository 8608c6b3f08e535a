#pragma once

#include <pthread.h>

#include <string>

namespace tempest::runtime {

// Names the calling thread for `top -H`, `perf` and debuggers, e.g. "t3 split" (task 3 of
// component "split"). Linux keeps 15 characters: longer names are cut.
inline void NameThisThread(std::string name) {
  if (name.size() > 15) name.resize(15);
  pthread_setname_np(pthread_self(), name.c_str());
}

}  // namespace tempest::runtime
