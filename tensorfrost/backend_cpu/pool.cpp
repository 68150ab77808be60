// tensorfrost buffer pool: reuses freed buffers of the same size.
//
// Allocating a fresh large buffer costs a page fault per 4 KiB page on first touch, which
// for a program called in a loop (outputs fed back as inputs) costs more than its kernels.
// Freed buffers are kept, by exact size, up to a cap, and handed out again.
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace {
std::mutex pool_mutex;
std::map<long long, std::vector<void*>> free_blocks;
long long cached_bytes = 0;
long long cache_limit = 1LL << 30;  // keep at most 1 GiB of freed buffers
}

extern "C" {

void* tf_pool_alloc(long long bytes) {
    {
        std::lock_guard<std::mutex> lock(pool_mutex);
        auto found = free_blocks.find(bytes);
        if (found != free_blocks.end() && !found->second.empty()) {
            void* block = found->second.back();
            found->second.pop_back();
            cached_bytes -= bytes;
            return block;
        }
    }
    return std::aligned_alloc(64, (size_t)bytes);
}

void tf_pool_release(void* block, long long bytes) {
    if (!block) return;
    {
        std::lock_guard<std::mutex> lock(pool_mutex);
        if (cached_bytes + bytes <= cache_limit) {
            free_blocks[bytes].push_back(block);
            cached_bytes += bytes;
            return;
        }
    }
    std::free(block);
}

void tf_pool_trim(void) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    for (auto& entry : free_blocks)
        for (void* block : entry.second) std::free(block);
    free_blocks.clear();
    cached_bytes = 0;
}

long long tf_pool_cached_bytes(void) {
    std::lock_guard<std::mutex> lock(pool_mutex);
    return cached_bytes;
}

}
