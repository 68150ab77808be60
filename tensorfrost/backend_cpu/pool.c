/* tensorfrost buffer pool: reuses freed buffers of the same size.
 *
 * Allocating a fresh large buffer costs a page fault per 4 KiB page on first touch, which
 * for a program called in a loop (outputs fed back as inputs) costs more than its kernels.
 * Freed buffers are kept, by exact size, up to a cap, and handed out again. Each block
 * carries its size in a 64-byte header, so releasing needs only the pointer. Plain C, so
 * that building it costs little on a first run. */
#define _GNU_SOURCE
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HEADER 64            /* keeps the data 64-byte aligned */
#define CACHE_LIMIT (1LL << 30) /* keep at most 1 GiB of freed buffers */
#define HUGE_PAGE (2LL << 20)
#define HUGE_FROM (4LL << 20)   /* as numpy does: huge pages for buffers of 4 MiB or more */

struct block { struct block* next; long long bytes; int held; }; /* held: by a Python object (see tf_invoke) */

static pthread_mutex_t pool_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct block* free_list = NULL; /* freed blocks of any size, newest first */
static long long cached_bytes = 0;
static long long live_bytes = 0; /* handed out and not released */

/* Large buffers are streamed by bandwidth-bound kernels; with 4 KiB pages their TLB misses
 * cost a fifth of the bandwidth, so they are aligned to and advised onto 2 MiB pages. */
static struct block* fresh_block(long long bytes) {
    long long total = bytes + HEADER;
    if (total < HUGE_FROM) return aligned_alloc(64, (size_t)total);
    total = (total + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void* memory = aligned_alloc((size_t)HUGE_PAGE, (size_t)total);
    if (memory) madvise(memory, (size_t)total, MADV_HUGEPAGE);
    return memory;
}

static void* take_offered(long long bytes);

void* tf_pool_alloc(long long bytes) {
    void* offered = take_offered(bytes);
    if (offered) return offered;
    struct block* found = NULL;
    pthread_mutex_lock(&pool_mutex);
    for (struct block** link = &free_list; *link; link = &(*link)->next) {
        if ((*link)->bytes == bytes) {
            found = *link;
            *link = found->next;
            cached_bytes -= bytes;
            break;
        }
    }
    pthread_mutex_unlock(&pool_mutex);
    if (!found) {
        found = fresh_block(bytes);
        if (!found) return NULL;
        found->bytes = bytes;
    }
    found->held = 0;
    __atomic_add_fetch(&live_bytes, bytes, __ATOMIC_RELAXED);
    return (char*)found + HEADER;
}

static int give_back_offered(void* data);

void tf_pool_release(void* data) {
    if (!data || give_back_offered(data)) return;
    struct block* b = (struct block*)((char*)data - HEADER);
    __atomic_sub_fetch(&live_bytes, b->bytes, __ATOMIC_RELAXED);
    pthread_mutex_lock(&pool_mutex);
    if (cached_bytes + b->bytes <= CACHE_LIMIT) {
        b->next = free_list;
        free_list = b;
        cached_bytes += b->bytes;
        b = NULL;
    }
    pthread_mutex_unlock(&pool_mutex);
    free(b);
}

void tf_pool_trim(void) {
    pthread_mutex_lock(&pool_mutex);
    while (free_list) {
        struct block* next = free_list->next;
        free(free_list);
        free_list = next;
    }
    cached_bytes = 0;
    pthread_mutex_unlock(&pool_mutex);
}

long long tf_pool_live_bytes(void) {
    return __atomic_load_n(&live_bytes, __ATOMIC_RELAXED);
}

long long tf_pool_cached_bytes(void) {
    pthread_mutex_lock(&pool_mutex);
    long long bytes = cached_bytes;
    pthread_mutex_unlock(&pool_mutex);
    return bytes;
}

/* Ctrl-C during a native call: Python only runs its SIGINT handler between bytecodes, so a
 * long program would ignore it until the end. This handler, installed in front of Python's
 * own C handler (which it still calls, so Python raises KeyboardInterrupt afterwards), sets
 * a flag that generated programs check between kernels and host loop iterations. If Python
 * installs another handler later (signal.signal), that one simply replaces this. */
static volatile sig_atomic_t interrupted = 0;
static struct sigaction previous_action;

static void on_interrupt(int sig, siginfo_t* info, void* context) {
    interrupted = 1;
    if (previous_action.sa_flags & SA_SIGINFO) {
        if (previous_action.sa_sigaction) previous_action.sa_sigaction(sig, info, context);
    } else if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN) {
        previous_action.sa_handler(sig);
    }
}

/* The flag; the handler is installed only over a handler function (not SIG_DFL / SIG_IGN). */
volatile sig_atomic_t* tf_watch_interrupts(void) {
    static int installed = 0;
    if (!installed && sigaction(SIGINT, NULL, &previous_action) == 0) {
        int catches = (previous_action.sa_flags & SA_SIGINFO) ? previous_action.sa_sigaction != NULL
                      : previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN;
        if (catches) {
            struct sigaction action;
            memset(&action, 0, sizeof action);
            action.sa_sigaction = on_interrupt;
            action.sa_flags = SA_SIGINFO | (previous_action.sa_flags & (SA_ONSTACK | SA_RESTART));
            sigemptyset(&action.sa_mask);
            installed = sigaction(SIGINT, &action, NULL) == 0;
        }
    }
    return &interrupted;
}

/* One call of a program's tf_main through a frame that Python fills once: a foreign call
 * through cffi costs per argument, so the per-call path passes one pointer.
 *
 * The frame also offers blocks that Python holds as the storage of earlier outputs no tensor
 * uses any more: this call's allocations of their size take them first (an output placed in
 * one comes back to the same Python object, with no allocation or release through cffi). An
 * offered block is marked held: releasing it in C only makes it free for the call again; it
 * goes back to the pool when its Python object dies (tf_pool_drop). Offers are per thread. */
#define MAX_OFFERS 64  /* as in runtime.py */
typedef int (*tf_main_fn)(const void* in, void* out, char* error, int error_size, const void* allocator);
struct tf_frame {
    tf_main_fn main; const void* in; void* out; char* error; int error_size; const void* allocator;
    int offer_count; void* offers[MAX_OFFERS]; int taken[MAX_OFFERS];
    long long elapsed_ns; /* of the last call (timed here: two clock reads in Python cost more) */
};
static __thread struct tf_frame* current_frame = NULL;

static void* take_offered(long long bytes) {
    struct tf_frame* f = current_frame;
    for (int k = 0; f && k < f->offer_count; k++) {
        struct block* b = (struct block*)((char*)f->offers[k] - HEADER);
        if (!f->taken[k] && b->bytes == bytes) {
            f->taken[k] = 1;
            return f->offers[k];
        }
    }
    return NULL;
}

static int give_back_offered(void* data) {
    struct block* b = (struct block*)((char*)data - HEADER);
    struct tf_frame* f = current_frame;
    for (int k = 0; f && k < f->offer_count; k++)
        if (f->offers[k] == data) f->taken[k] = 0;
    return b->held;
}

int tf_invoke(struct tf_frame* frame) {
    for (int k = 0; k < frame->offer_count; k++) {
        ((struct block*)((char*)frame->offers[k] - HEADER))->held = 1;
        frame->taken[k] = 0;
    }
    current_frame = frame;
    struct timespec start, stop;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int status = frame->main(frame->in, frame->out, frame->error, frame->error_size, frame->allocator);
    clock_gettime(CLOCK_MONOTONIC, &stop);
    frame->elapsed_ns = (stop.tv_sec - start.tv_sec) * 1000000000LL + (stop.tv_nsec - start.tv_nsec);
    current_frame = NULL;
    frame->offer_count = 0;
    return status;
}

/* The destructor of an output's Python object: the block is no longer held. */
void tf_pool_drop(void* data) {
    if (!data) return;
    ((struct block*)((char*)data - HEADER))->held = 0;
    tf_pool_release(data);
}

/* The worker threads that run kernels' rows (tf_pool_parallel), shared by every program.
 *
 * An OpenMP parallel region ends when every thread of the team has arrived, so each of a
 * program's kernels waited for a worker that a busy process kept off its core (a training
 * step of 31 kernels ran 3-4x slower than on one thread under load). Here a kernel's rows
 * come in pieces that threads claim, and the caller waits only for pieces a worker has
 * claimed: a worker that wakes late finds nothing left and goes back to waiting. Workers
 * spin briefly between kernels, then sleep on a futex. One kernel at a time: a second
 * caller (another Python thread) runs its rows itself. */
typedef void (*tf_task_fn)(void* context, long long begin, long long end);

#define SPIN_NS 50000LL      /* spin this long for the next kernel or the last piece, then sleep */
#define PIECES_PER_THREAD 8  /* pieces claimed one at a time: enough to even out a slow thread */
#define MAX_THREADS 256

#if defined(__x86_64__) || defined(__i386__)
#define PAUSE() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define PAUSE() __asm__ volatile("yield")
#else
#define PAUSE() ((void)0)
#endif

static struct {
    /* kernel number << 32 | pieces left to claim: a claim (compare-and-swap) of an old
     * kernel's word can never succeed on a later kernel's */
    unsigned long long claim;
    int generation;  /* kernel number, for the workers to sleep on */
    int done;        /* pieces finished; the caller may sleep on it */
    int pieces, sleepers, caller_sleeps;
    long long count, step;
    tf_task_fn fn;
    void* context;
} job;
static pthread_mutex_t job_mutex = PTHREAD_MUTEX_INITIALIZER;
static int thread_count = 1, started = 0;

static void futex(int* word, int op, int value) {
    syscall(SYS_futex, word, op | FUTEX_PRIVATE_FLAG, value, NULL, NULL, 0);
}

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Spin until *word differs from value, for up to SPIN_NS; returns whether it did. */
static int spin_while(int* word, int value) {
    long long deadline = 0;
    for (int k = 1;; k++) {
        if (__atomic_load_n(word, __ATOMIC_SEQ_CST) != value) return 1;
        PAUSE();
        if (k % 64 == 0) {
            long long t = now_ns();
            if (!deadline) deadline = t + SPIN_NS;
            else if (t > deadline) return 0;
        }
    }
}

/* Claim and run pieces of the current kernel while any are left. A piece claimed keeps
 * the kernel unfinished, so its fields cannot change under it. */
static void run_pieces(void) {
    unsigned long long word = __atomic_load_n(&job.claim, __ATOMIC_SEQ_CST);
    while (word & 0xffffffffULL) {
        if (!__atomic_compare_exchange_n(&job.claim, &word, word - 1, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
            continue;  /* word now holds the current value */
        long long begin = (job.pieces - (long long)(word & 0xffffffffULL)) * job.step, end = begin + job.step;
        job.fn(job.context, begin, end < job.count ? end : job.count);
        if (__atomic_add_fetch(&job.done, 1, __ATOMIC_SEQ_CST) == job.pieces &&
            __atomic_load_n(&job.caller_sleeps, __ATOMIC_SEQ_CST))
            futex(&job.done, FUTEX_WAKE, 1);
        word = __atomic_load_n(&job.claim, __ATOMIC_SEQ_CST);
    }
}

static void* worker(void* unused) {
    (void)unused;
    int seen = __atomic_load_n(&job.generation, __ATOMIC_SEQ_CST);
    for (;;) {
        while (!spin_while(&job.generation, seen)) {
            __atomic_add_fetch(&job.sleepers, 1, __ATOMIC_SEQ_CST);
            futex(&job.generation, FUTEX_WAIT, seen);  /* returns at once if it moved on */
            __atomic_sub_fetch(&job.sleepers, 1, __ATOMIC_SEQ_CST);
        }
        seen = __atomic_load_n(&job.generation, __ATOMIC_SEQ_CST);
        run_pieces();
    }
    return NULL;
}

/* Threads to use, the caller included (the runtime passes OMP_NUM_THREADS or the cores). */
void tf_pool_set_threads(int threads) {
    pthread_mutex_lock(&job_mutex);
    if (!started) thread_count = threads < 1 ? 1 : (threads > MAX_THREADS ? MAX_THREADS : threads);
    pthread_mutex_unlock(&job_mutex);
}

static void start_workers(void) {
    started = 1;  /* a worker that cannot start leaves its share to the others */
    sigset_t all, old;  /* workers inherit a mask that blocks signals: they go to Python's threads */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    for (int k = 1; k < thread_count; k++) {
        pthread_t thread;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        pthread_create(&thread, &attr, worker, NULL);
        pthread_attr_destroy(&attr);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* fork(): the child has only the thread that forked. The pool's list is forked whole (its
 * lock is held across the fork); the child starts workers of its own when it needs them, and
 * a kernel another thread was running in the parent is nothing to it. */
static void before_fork(void) { pthread_mutex_lock(&pool_mutex); }
static void after_fork_in_parent(void) { pthread_mutex_unlock(&pool_mutex); }
static void after_fork_in_child(void) {
    pthread_mutex_unlock(&pool_mutex);
    pthread_mutex_init(&job_mutex, NULL);
    memset(&job, 0, sizeof job);
    started = 0;
}
__attribute__((constructor)) static void watch_forks(void) {
    pthread_atfork(before_fork, after_fork_in_parent, after_fork_in_child);
}

/* fn(context, begin, end) over [0, count) in pieces, on the workers and the caller. */
void tf_pool_parallel(long long count, tf_task_fn fn, void* context) {
    if (count <= 0) return;
    if (thread_count == 1 || count == 1 || pthread_mutex_trylock(&job_mutex) != 0) {
        fn(context, 0, count);
        return;
    }
    if (!started) start_workers();
    long long pieces = (long long)thread_count * PIECES_PER_THREAD;
    job.step = (count + (pieces < count ? pieces : count) - 1) / (pieces < count ? pieces : count);
    job.pieces = (int)((count + job.step - 1) / job.step);
    job.count = count;
    job.fn = fn;
    job.context = context;
    __atomic_store_n(&job.done, 0, __ATOMIC_SEQ_CST);
    int generation = job.generation + 1;  /* the claim first: a worker woken by the number finds it */
    __atomic_store_n(&job.claim, ((unsigned long long)(unsigned)generation << 32) | (unsigned)job.pieces, __ATOMIC_SEQ_CST);
    __atomic_store_n(&job.generation, generation, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&job.sleepers, __ATOMIC_SEQ_CST)) futex(&job.generation, FUTEX_WAKE, thread_count);
    run_pieces();
    for (int done; (done = __atomic_load_n(&job.done, __ATOMIC_SEQ_CST)) < job.pieces;) {
        if (spin_while(&job.done, done)) continue;
        __atomic_store_n(&job.caller_sleeps, 1, __ATOMIC_SEQ_CST);
        if (__atomic_load_n(&job.done, __ATOMIC_SEQ_CST) == done) futex(&job.done, FUTEX_WAIT, done);
        __atomic_store_n(&job.caller_sleeps, 0, __ATOMIC_SEQ_CST);
    }
    pthread_mutex_unlock(&job_mutex);
}
