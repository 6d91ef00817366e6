package io.gpupool.bench.pipeline;

import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;

/**
 * The JIT compiler's time in this JVM, where the bench's scheduler runs. On a 2-core machine the compiler
 * threads took 22-37 % of it for the first 35 s of paced load (the paths a drain does not reach: telemetry,
 * completions, releases), and a window measured then measures the compiler.
 */
final class JitActivity {
    private final CompilationMXBean compiler = ManagementFactory.getCompilationMXBean();
    private long lastTotalMs;
    private long lastSampleMs;
    private long lastDeltaMs = -1;

    JitActivity(final long nowMs) {
        lastTotalMs = totalMs();
        lastSampleMs = nowMs;
    }

    /** Whether this JVM reports its compilation time at all (a JVM without a JIT, or one that does not, reports -1). */
    boolean measured() {
        return totalMs() >= 0;
    }

    /** Takes a sample: the compiler's milliseconds per wall second since the last one. */
    void sample(final long nowMs) {
        final long total = totalMs();
        lastDeltaMs = (total - lastTotalMs) * 1000 / Math.max(1, nowMs - lastSampleMs);
        lastTotalMs = total;
        lastSampleMs = nowMs;
    }

    /** When the last sample was taken (the start before the first). */
    long sampledAtMs() {
        return lastSampleMs;
    }

    /** The compiler's milliseconds per wall second between the last two samples; -1 before the first. */
    long msPerS() {
        return lastDeltaMs;
    }

    private long totalMs() {
        return compiler != null && compiler.isCompilationTimeMonitoringSupported() ? compiler.getTotalCompilationTime() : -1;
    }
}
