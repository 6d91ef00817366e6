package io.gpupool.sink;

import io.gpupool.avro.JobEvent;
import io.gpupool.sink.apply.JobPart;
import java.util.Set;

/**
 * A hook into what the sink runs, for code in the same JVM: the simulated fleet makes busy GPUs
 * look busy, {@code gpupool up} shows progress, tests wait on it. Called from sink threads; keep
 * it quick and thread-safe.
 */
public interface SinkListener {

    /** A job's part started on a node. */
    default void partStarted(JobPart part) {
    }

    /** A job's part is over on a node (completed, failed, evicted or released). */
    default void partEnded(JobPart part) {
    }

    /**
     * The GPUs that now run at least one part (a shared GPU stays busy while any of its parts runs).
     * Fits {@code BusyGpus::set} of the simulated fleet.
     */
    default void busyGpusChanged(Set<String> gpuUuids) {
    }

    /** A job event was handed to Kafka. */
    default void eventPublished(JobEvent event) {
    }
}
