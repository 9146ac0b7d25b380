// An allocator for the visited-state table's arrays that asks the kernel
// to back large ones with 2 MiB pages.
//
// A lookup lands on a random slot of arrays of hundreds of megabytes. With
// 4 KiB pages nearly every one also misses the TLB, and inside a virtual
// machine a page walk is two-dimensional and slow; with 2 MiB pages a few
// hundred entries cover the whole table. Linux's transparent huge pages
// give them to a 2 MiB-aligned region marked MADV_HUGEPAGE (the mode most
// distributions ship); elsewhere the advice is ignored and pages stay small.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <new>

#include <sys/mman.h>

namespace lockstep::explore {

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t{2} << 20;

  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) {}  // NOLINT: rebinding

  T* allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) return std::allocator<T>().allocate(n);
    // Aligned, so that every whole 2 MiB of it can be one page; the rest
    // keeps small pages rather than take (and fill) a page of 2 MiB.
    // posix_memalign, not aligned_alloc: the size need not be a multiple
    // of the alignment.
    void* p = nullptr;
    if (posix_memalign(&p, kHugePage, bytes) != 0) throw std::bad_alloc();
    madvise(p, bytes / kHugePage * kHugePage, MADV_HUGEPAGE);  // advice: failing changes nothing
    return static_cast<T*>(p);
  }
  void deallocate(T* p, size_t n) {
    if (n * sizeof(T) < kHugePage) {
      std::allocator<T>().deallocate(p, n);
    } else {
      std::free(p);
    }
  }
  friend bool operator==(const HugePageAllocator&, const HugePageAllocator&) { return true; }
};

}  // namespace lockstep::explore
