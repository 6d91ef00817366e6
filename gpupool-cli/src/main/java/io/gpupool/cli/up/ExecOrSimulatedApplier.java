package io.gpupool.cli.up;

import io.gpupool.sink.apply.Applier;
import io.gpupool.sink.apply.JobPart;
import io.gpupool.sink.apply.Outcome;
import io.gpupool.sink.apply.PartObserver;
import java.time.Duration;
import java.util.Optional;

/**
 * {@code gpupool up --exec-jobs}: a job that carries a command runs as a real process on this
 * machine (exec applier); every other job is simulated. So one local pipeline serves a synthetic
 * load and a user's own `gpupool submit -- CMD` at once.
 */
final class ExecOrSimulatedApplier implements Applier {

    private final Applier exec;
    private final Applier simulated;

    ExecOrSimulatedApplier(final Applier exec, final Applier simulated) {
        this.exec = exec;
        this.simulated = simulated;
    }

    private Applier forPart(final JobPart part) {
        return part.command().isEmpty() ? simulated : exec;
    }

    @Override
    public String name() {
        return "exec+simulated";
    }

    @Override
    public void allocate(final JobPart part, final PartObserver observer) throws Exception {
        forPart(part).allocate(part, observer);
    }

    @Override
    public Optional<Outcome> stop(final JobPart part, final String reason) throws Exception {
        return forPart(part).stop(part, reason);
    }

    /** The longer of the two: a start waits for whichever kind of part held its GPUs. */
    @Override
    public Duration longestStop() {
        final Duration a = exec.longestStop();
        final Duration b = simulated.longestStop();
        return a.compareTo(b) >= 0 ? a : b;
    }

    @Override
    public void recover(final JobPart part, final long pid, final long startedAtMillis, final PartObserver observer) {
        forPart(part).recover(part, pid, startedAtMillis, observer);
    }

    @Override
    public void close() {
        try {
            exec.close();
        } finally {
            simulated.close();
        }
    }
}
