/* Hostile (C): what a native bot tries from inside the strong tier. Each request line names an attack
 * ("mode":"...") and gets back {"result": "..."}: "ok", or "errno N" for a refusal. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *idle(void *arg) { return arg; }

static int shared_word = 0;

static void *wait_shared(void *arg) { /* a shared futex wait, as libstdc++'s std::atomic::wait makes it */
    struct timespec limit = {1, 0}; /* within the decision limit when the wake is refused */
    syscall(SYS_futex, &shared_word, 0 /* FUTEX_WAIT, not private */, 0, &limit, NULL, 0);
    return arg;
}

static long attack(const char *line) {
    if (strstr(line, "\"fork\"")) {
        pid_t pid = fork();
        if (pid == 0) _exit(0);
        if (pid > 0) { waitpid(pid, NULL, 0); return 0; }
        return -errno;
    }
    if (strstr(line, "\"thread\"")) {
        pthread_t t;
        int rc = pthread_create(&t, NULL, idle, NULL);
        if (rc == 0) { pthread_join(t, NULL); return 0; }
        return -rc;
    }
    if (strstr(line, "\"futex-wake\"")) { /* wakes its own thread's shared futex wait: how many it woke */
        pthread_t t;
        long woke = 0;
        int rc = pthread_create(&t, NULL, wait_shared, NULL);
        for (int i = 0; i < 80 && woke == 0; i++) { /* until the thread waits (or, alone, once) */
            woke = syscall(SYS_futex, &shared_word, 1 /* FUTEX_WAKE, not private */, 1, NULL, NULL, 0);
            if (woke < 0) woke = -errno;
            if (woke == 0 && rc == 0) usleep(10000); else break;
        }
        if (rc == 0) pthread_join(t, NULL);
        return woke;
    }
    if (strstr(line, "\"clone3\"")) return syscall(SYS_clone3, NULL, 0) < 0 ? -errno : 0;
    if (strstr(line, "\"socket\"")) return socket(AF_INET, SOCK_STREAM, 0) < 0 ? -errno : 0;
    if (strstr(line, "\"kill\"")) return kill(1, SIGKILL) < 0 ? -errno : 0;
    if (strstr(line, "\"passwd\"")) return open("/etc/passwd", O_RDONLY) < 0 ? -errno : 0;
    if (strstr(line, "\"write\"")) return open("/left-behind", O_CREAT | O_WRONLY, 0600) < 0 ? -errno : 0;
    if (strstr(line, "\"raise-limit\"")) {
        struct rlimit r = {RLIM_INFINITY, RLIM_INFINITY};
        return setrlimit(RLIMIT_AS, &r) < 0 ? -errno : 0;
    }
    if (strstr(line, "\"shared\"")) { /* shared anonymous memory, touched: 2 GiB */
        size_t size = (size_t)2 << 30;
        char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) return -errno;
        for (size_t i = 0; i < size; i += 4096) p[i] = 1;
        return 0;
    }
    if (strstr(line, "\"hog\"")) { /* private memory, touched, 16 MiB at a time up to 2 GiB */
        long mb = 0;
        while (mb < 2048) {
            char *p = malloc(16 << 20);
            if (!p) return mb; /* how much it got */
            memset(p, 1, 16 << 20);
            mb += 16;
        }
        return mb;
    }
    if (strstr(line, "\"caps\"")) { /* the capabilities it holds after its exec: a root of a user namespace
                                   * gets its bounding set back at exec, unless no_new_privs */
        struct { unsigned version; int pid; } header = {0x20080522, 0};
        struct { unsigned effective, permitted, inheritable; } data[2];
        if (syscall(SYS_capget, &header, data) < 0) return -errno;
        return (data[0].effective | data[0].permitted | data[1].effective | data[1].permitted) != 0;
    }
    if (strstr(line, "\"growsdown\"")) { /* memory the kernel counts as stack, not data: 1 GiB, touched */
        size_t size = (size_t)1 << 30;
        char *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_GROWSDOWN, -1, 0);
        if (p == MAP_FAILED) return -errno;
        for (size_t i = 0; i < size; i += 4096) p[i] = 1;
        return 0;
    }
    if (strstr(line, "\"pageout\"") || strstr(line, "\"cold\"")) {
        /* evict pages of a file every sandbox maps from the page cache: the reset of a timing channel */
        int fd = open("/lib/x86_64-linux-gnu/libc.so.6", O_RDONLY);
        char *p = fd < 0 ? MAP_FAILED : mmap(NULL, 65536, PROT_READ, MAP_PRIVATE, fd, 0);
        if (p == MAP_FAILED) return -1000 - errno;
        return madvise(p, 65536, strstr(line, "\"cold\"") ? MADV_COLD : MADV_PAGEOUT) < 0 ? -errno : 0;
    }
    if (strstr(line, "\"pagemap\"")) return open("/proc/self/pagemap", O_RDONLY) < 0 ? -errno : 0;
    if (strstr(line, "\"mem\"")) return open("/proc/self/mem", O_RDWR) < 0 ? -errno : 0;
    if (strstr(line, "\"shell\"")) {
        char *argv[] = {"/bin/sh", "-c", "true", NULL};
        execv("/bin/sh", argv);
        return -errno;
    }
    return -1000;
}

int main(void) {
    static char line[300000];
    while (fgets(line, sizeof line, stdin)) {
        printf("{\"result\":%ld}\n", attack(line));
        fflush(stdout);
    }
    return 0;
}
