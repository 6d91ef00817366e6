package io.gpupool.bench.cost;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of the scheduler's threads in this JVM: those whose name carries its application id (stream threads,
 * their producer and consumer network threads, the admin and cleanup threads). JNI time (RocksDB calls) is the
 * calling thread's and counts; RocksDB's native background threads do not.
 */
final class SchedulerThreads {
    private SchedulerThreads() {
    }

    /** CPU nanoseconds so far per thread id of the threads named with {@code marker}. */
    static Map<Long, Long> cpuNanos(final String marker) {
        final ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        final Map<Long, Long> cpu = new HashMap<>();
        for (final ThreadInfo t : mx.getThreadInfo(mx.getAllThreadIds())) {
            if (t != null && t.getThreadName().contains(marker)) {
                final long ns = mx.getThreadCpuTime(t.getThreadId());
                if (ns >= 0) {
                    cpu.put(t.getThreadId(), ns);
                }
            }
        }
        return cpu;
    }

    /** CPU nanoseconds spent between two readings; a thread that started in between counts from zero. */
    static long between(final Map<Long, Long> before, final Map<Long, Long> after) {
        long ns = 0;
        for (final Map.Entry<Long, Long> e : after.entrySet()) {
            ns += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return ns;
    }
}
