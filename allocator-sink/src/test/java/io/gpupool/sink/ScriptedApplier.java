package io.gpupool.sink;

import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.Outcome;
import io.gpupool.sink.apply.PartObserver;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An applier for processor tests: a part runs until the test ends it or a stop takes it; a stop
 * takes {@code stopMillis} (a grace period). It logs what happened, in order, as "start JOB@NODE",
 * "stop JOB@NODE" (when a stop begins) and "stopped JOB@NODE" (when it is over). With
 * {@link #stopsFail} every stop throws and leaves the part running.
 */
final class ScriptedApplier implements Applier {

    private final long stopMillis;
    private final Duration longestStop;
    private final Map<String, PartObserver> running = new ConcurrentHashMap<>();
    final List<String> log = new CopyOnWriteArrayList<>();
    private final AtomicInteger stopping = new AtomicInteger();
    final AtomicInteger mostStopsAtOnce = new AtomicInteger();
    /** When set, every stop attempt throws (after "stop JOB@NODE"), and the part goes on running. */
    volatile boolean stopsFail;

    ScriptedApplier(final long stopMillis, final Duration longestStop) {
        this.stopMillis = stopMillis;
        this.longestStop = longestStop;
    }

    @Override
    public String name() {
        return "scripted";
    }

    @Override
    public void allocate(final JobPart part, final PartObserver observer) {
        running.put(part.commandId(), observer);
        log.add("start " + part.key());
        observer.started(part, -1);
    }

    @Override
    public Optional<Outcome> stop(final JobPart part, final String reason) throws Exception {
        if (stopsFail) {
            if (!running.containsKey(part.commandId())) {
                return Optional.empty();
            }
            log.add("stop " + part.key());
            throw new IOException("process survived SIGKILL (test)");
        }
        if (running.remove(part.commandId()) == null) {
            return Optional.empty();
        }
        log.add("stop " + part.key());
        mostStopsAtOnce.accumulateAndGet(stopping.incrementAndGet(), Math::max);
        try {
            Thread.sleep(stopMillis); // the behaviour under test: a stop that takes its grace period
        } finally {
            stopping.decrementAndGet();
        }
        log.add("stopped " + part.key());
        return Optional.of(Outcome.stopped(OptionalInt.of(143), reason + " (SIGTERM)"));
    }

    /** The part ends by itself, as a process that exits 0. */
    void complete(final JobPart part) {
        final PartObserver observer = running.remove(part.commandId());
        if (observer != null) {
            observer.ended(part, Outcome.exited(0));
        }
    }

    boolean runs(final String commandId) {
        return running.containsKey(commandId);
    }

    int runningCount() {
        return running.size();
    }

    @Override
    public Duration longestStop() {
        return longestStop;
    }

    @Override
    public void recover(final JobPart part, final long pid, final long startedAtMillis, final PartObserver observer) {
        running.put(part.commandId(), observer);
    }

    @Override
    public void close() {
        running.clear();
    }
}
