package io.gpupool.cli.workload;

import io.gpupool.avro.JobRequest;
import io.gpupool.avro.TopologyMode;
import io.gpupool.avro.TopologyScope;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * The Microsoft Philly trace as processed for Pollux (timestamp, duration, num_gpus, gpu_time,
 * cluster): each row a job arriving at {@code timestamp}, running {@code duration} seconds on
 * {@code num_gpus} GPUs. Up to 8 GPUs fit one node; more become a gang of 8-GPU nodes on one leaf
 * (preferred). The virtual cluster is the tenant. The trace's real duration goes to
 * simulatedRuntimeMillis only: the scheduler learns estimates, as Philly's did not have them.
 */
final class PhillyTrace {

    static final String[] COLUMNS = {"timestamp", "duration", "num_gpus", "cluster"};
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

    private PhillyTrace() {
    }

    static List<TimedJob> jobs(final CsvTable t, final String pool, final String runTag) {
        final List<long[]> rows = new ArrayList<>(t.size());
        for (int i = 0; i < t.size(); i++) {
            final long submit;
            try {
                submit = LocalDateTime.parse(t.cell(i, "timestamp"), TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw t.error(i, "timestamp '" + t.cell(i, "timestamp") + "' is not yyyy-MM-dd HH:mm:ss");
            }
            rows.add(new long[] {submit, i});
        }
        rows.sort(Comparator.<long[]>comparingLong(r -> r[0]).thenComparingLong(r -> r[1]));
        final long first = rows.isEmpty() ? 0 : rows.get(0)[0];
        final List<TimedJob> jobs = new ArrayList<>(rows.size());
        for (final long[] r : rows) {
            final int i = (int) r[1];
            final int gpus = (int) t.number(i, "num_gpus");
            if (gpus < 1) {
                continue; // gpupool schedules GPU jobs only
            }
            final long millis = Math.max(1_000L, Math.round(t.number(i, "duration") * 1000));
            final String cluster = t.cell(i, "cluster");
            final JobRequest.Builder b = JobRequest.newBuilder().setName("philly-" + (i + 2)).setTenant("vc-" + cluster)
                    .setPool(pool).setPriorityClass("batch").setSimulatedRuntimeMillis(millis)
                    .setLabels(Map.of("trace", "philly", "trace.line", Integer.toString(i + 2), "trace.gpus", Integer.toString(gpus)));
            if (gpus <= 8) {
                b.setNodes(1).setGpusPerNode(gpus);
            } else {
                b.setNodes((gpus + 7) / 8).setGpusPerNode(8).setTopology(TopologyScope.SAME_LEAF)
                        .setTopologyMode(TopologyMode.PREFERRED);
            }
            jobs.add(new TimedJob(r[0] - first, String.format("philly-%s-%05d", runTag, i + 2), b.build()));
        }
        return jobs;
    }
}
