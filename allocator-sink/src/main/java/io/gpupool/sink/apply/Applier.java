package io.gpupool.sink.apply;

import java.time.Duration;
import java.util.Optional;

/**
 * Carries out node commands on a node: runs a job's part (a process, an allocation file entry, a
 * simulated timer) and stops it. Implementations must be thread-safe: allocate and stop come from
 * the consumer thread, endings from the applier's own threads.
 */
public interface Applier extends AutoCloseable {

    /** Short name for metrics and logs: exec, file, simulated. */
    String name();

    /**
     * Starts the part and returns once it runs (or is recorded); reports its start and end to
     * {@code observer}. Throws when it could not start; the sink retries with backoff.
     */
    void allocate(JobPart part, PartObserver observer) throws Exception;

    /**
     * Stops the part if it still runs and frees what it holds; returns once it is gone, with how it
     * ended, or empty when it was not running here. After a stop the observer is not called for the
     * part any more (the sink ignores a late call). Throws when the part may still run; the part must
     * then stay tracked, so that the next call really tries again (empty means "not running").
     */
    Optional<Outcome> stop(JobPart part, String reason) throws Exception;

    /**
     * The longest one {@link #stop} takes when the part does not go quietly (grace period, kill and
     * the wait for the exit). A part placed on the GPUs of a part being stopped waits for that stop
     * as long as this allows, retries included; after that it is refused (reported EVICTED), never
     * started beside a part that may still run. An applier that does not say is
     * given a minute, more than a process's usual grace period and kill.
     */
    default Duration longestStop() {
        return Duration.ofMinutes(1);
    }

    /**
     * Takes over a part that was running when a previous sink process died (from the ledger).
     * {@code pid} is the process recorded at its start, or -1. Must call {@code observer.ended} at
     * once when the part cannot be resumed.
     */
    void recover(JobPart part, long pid, long startedAtMillis, PartObserver observer);

    /** Stops watching; running parts are left as they are (a sink restart must not kill the jobs). */
    @Override
    void close();
}
