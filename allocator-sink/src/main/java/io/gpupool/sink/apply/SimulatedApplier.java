package io.gpupool.sink.apply;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * "Runs" a part for its runtime estimate divided by a time scale, then ends it with exit code 0.
 * With a scale of 60 a one-hour job takes one minute. For {@code gpupool up}, tests and benchmarks.
 */
public final class SimulatedApplier implements Applier {

    private final double timeScale;
    private final Duration defaultRuntime;
    private final ScheduledExecutorService timers;
    /** Keyed by the ALLOCATE command id: a re-placed job never collides with its previous run. */
    private final Map<String, Running> running = new ConcurrentHashMap<>();

    private record Running(JobPart part, ScheduledFuture<?> timer, PartObserver observer) {
    }

    /**
     * @param timeScale      how many times faster than real time jobs run (1 = real time)
     * @param defaultRuntime runtime of a job that has no estimate (in job time, before scaling)
     */
    public SimulatedApplier(final double timeScale, final Duration defaultRuntime) {
        if (!(timeScale > 0)) {
            throw new IllegalArgumentException("time scale must be > 0, got " + timeScale);
        }
        this.timeScale = timeScale;
        this.defaultRuntime = defaultRuntime;
        this.timers = Executors.newSingleThreadScheduledExecutor(r -> {
            final Thread t = new Thread(r, "sink-simulated-timer");
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public String name() {
        return "simulated";
    }

    /** Wall-clock time the part takes at this scale. */
    public long scaledMillis(final JobPart part) {
        final long jobMillis = part.runtimeMillis().orElse(defaultRuntime.toMillis());
        return Math.max(0L, Math.round(jobMillis / timeScale));
    }

    @Override
    public void allocate(final JobPart part, final PartObserver observer) {
        // Reported first: a zero-length job must not end before it started.
        observer.started(part, -1);
        schedule(part, scaledMillis(part), observer);
    }

    private void schedule(final JobPart part, final long delayMillis, final PartObserver observer) {
        // Registered before the timer can fire, so a zero-length job still finds itself in the map.
        synchronized (running) {
            final ScheduledFuture<?> timer = timers.schedule(() -> finish(part.commandId()), delayMillis, TimeUnit.MILLISECONDS);
            running.put(part.commandId(), new Running(part, timer, observer));
        }
    }

    private void finish(final String allocation) {
        final Running r;
        synchronized (running) {
            r = running.remove(allocation);
        }
        if (r != null) {
            r.observer().ended(r.part(), Outcome.finished());
        }
    }

    @Override
    public Optional<Outcome> stop(final JobPart part, final String reason) {
        final Running r;
        synchronized (running) {
            r = running.remove(part.commandId());
        }
        if (r == null) {
            return Optional.empty();
        }
        r.timer().cancel(false);
        return Optional.of(Outcome.stopped(OptionalInt.empty(), reason));
    }

    /** A stop only cancels a timer. */
    @Override
    public Duration longestStop() {
        return Duration.ofSeconds(1);
    }

    @Override
    public void recover(final JobPart part, final long pid, final long startedAtMillis, final PartObserver observer) {
        final long elapsed = Math.max(0L, System.currentTimeMillis() - startedAtMillis);
        schedule(part, Math.max(0L, scaledMillis(part) - elapsed), observer);
    }

    /** Parts that run now. */
    public int runningCount() {
        return running.size();
    }

    @Override
    public void close() {
        timers.shutdownNow();
        running.clear();
    }
}
