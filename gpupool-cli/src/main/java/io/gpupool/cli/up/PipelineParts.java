package io.gpupool.cli.up;

import io.gpupool.avro.JobEvent;
import io.gpupool.cli.workload.WorkloadRunner;
import io.gpupool.collector.app.FleetCollector;
import io.gpupool.sink.SinkRunner;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What the pipeline services of {@code gpupool up} hand each other: the fleet (whose load follows
 * the sink), the sink, the workload, and the job events the sink has published, counted by type.
 */
public final class PipelineParts {

    public static final String POOL = "default";

    private volatile FleetCollector fleet;
    private volatile SinkRunner sink;
    private volatile WorkloadRunner workload;
    /** Jobs by the event types the sink published for them: a gang's parts count once. */
    private final Map<String, Set<String>> events = new ConcurrentHashMap<>();

    void fleet(final FleetCollector f) {
        fleet = f;
    }

    void sink(final SinkRunner s) {
        sink = s;
    }

    void workload(final WorkloadRunner w) {
        workload = w;
    }

    public Optional<FleetCollector> fleet() {
        return Optional.ofNullable(fleet);
    }

    public Optional<SinkRunner> sink() {
        return Optional.ofNullable(sink);
    }

    /** Hands the sink over to the caller, who stops it (tests restarting the sink); {@code up} then leaves it alone. */
    public synchronized Optional<SinkRunner> takeSink() {
        final Optional<SinkRunner> s = sink();
        sink = null;
        return s;
    }

    public Optional<WorkloadRunner> workload() {
        return Optional.ofNullable(workload);
    }

    void eventPublished(final JobEvent event) {
        events.computeIfAbsent(event.getType().name(), k -> ConcurrentHashMap.newKeySet()).add(event.getJobId());
    }

    /** Jobs with at least one event of this type (COMPLETED, EVICTED, ...) since up started. */
    public long events(final String type) {
        final Set<String> jobs = events.get(type);
        return jobs == null ? 0 : jobs.size();
    }
}
