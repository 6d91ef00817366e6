package io.gpupool.cli.up;

import io.gpupool.avro.JobEvent;
import io.gpupool.cli.workload.WorkloadRunner;
import io.gpupool.collector.app.FleetCollector;
import io.gpupool.sink.SinkRunner;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * What the pipeline services of {@code gpupool up} hand each other: the fleet (whose load follows
 * the sink), the sink, the workload, and the job events the sink has published, counted by type.
 */
public final class PipelineParts {

    public static final String POOL = "default";

    private volatile FleetCollector fleet;
    private volatile SinkRunner sink;
    private volatile WorkloadRunner workload;
    private final Map<String, LongAdder> events = new ConcurrentHashMap<>();

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

    public Optional<WorkloadRunner> workload() {
        return Optional.ofNullable(workload);
    }

    void eventPublished(final JobEvent event) {
        events.computeIfAbsent(event.getType().name(), k -> new LongAdder()).increment();
    }

    /** Job events of this type (COMPLETED, EVICTED, ...) the sink has published since up started. */
    public long events(final String type) {
        final LongAdder a = events.get(type);
        return a == null ? 0 : a.sum();
    }
}
