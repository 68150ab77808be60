// tensorfrost buffer pool: reuses freed buffers of the same size.
//
// Allocating a fresh large buffer costs a page fault per 4 KiB page on first touch, which
// for a program called in a loop (outputs fed back as inputs) costs more than its kernels.
// Freed buffers are kept, by exact size, up to a cap, and handed out again. Each block
// carries its size in a 64-byte header, so releasing needs only the pointer.
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

static const long long header = 64;  // keeps the data 64-byte aligned

void* tf_pool_alloc(long long bytes) {
    void* block = nullptr;
    {
        std::lock_guard<std::mutex> lock(pool_mutex);
        auto found = free_blocks.find(bytes);
        if (found != free_blocks.end() && !found->second.empty()) {
            block = found->second.back();
            found->second.pop_back();
            cached_bytes -= bytes;
        }
    }
    if (!block) {
        block = std::aligned_alloc(64, (size_t)(bytes + header));
        if (!block) return nullptr;
        *(long long*)block = bytes;
    }
    return (char*)block + header;
}

void tf_pool_release(void* data) {
    if (!data) return;
    void* block = (char*)data - header;
    long long bytes = *(long long*)block;
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
