package io.gpupool.cli.workload;

import io.gpupool.avro.JobRequest;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The Alibaba cluster-trace-gpu-v2023 pod list (openb_pod_list_*.csv): each GPU pod arrives at
 * {@code creation_time} and runs until {@code deletion_time} (seconds from the trace start). A pod
 * with gpu_milli below 1000 shares one GPU; num_gpu 0 (CPU-only) pods are skipped. QoS maps to the
 * priority class (LS, Guaranteed: production; Burstable: batch; BE: best-effort, preemptible). The
 * trace's GPU models (T4, V100M16, ...) are kept as a label, not a constraint, so the pods fit any fleet.
 */
final class OpenbTrace {

    static final String[] COLUMNS = {"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "qos", "creation_time",
            "deletion_time"};

    private OpenbTrace() {
    }

    static List<TimedJob> jobs(final CsvTable t, final String pool, final String runTag) {
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < t.size(); i++) {
            if (t.number(i, "num_gpu") >= 1) {
                order.add(i);
            }
        }
        order.sort(Comparator.<Integer>comparingDouble(i -> t.number(i, "creation_time")).thenComparingInt(i -> i));
        final List<TimedJob> jobs = new ArrayList<>(order.size());
        final double first = order.isEmpty() ? 0 : t.number(order.get(0), "creation_time");
        for (final int i : order) {
            final int gpus = (int) t.number(i, "num_gpu");
            final int milli = (int) t.number(i, "gpu_milli");
            final double created = t.number(i, "creation_time");
            final double deleted = t.cell(i, "deletion_time").isEmpty() ? created + 3600 : t.number(i, "deletion_time");
            final String qos = t.cell(i, "qos");
            final String priorityClass = switch (qos) {
                case "LS", "Guaranteed" -> "production";
                case "BE" -> "best-effort";
                default -> "batch";
            };
            final JobRequest.Builder b = JobRequest.newBuilder().setName(t.cell(i, "name"))
                    .setTenant("openb-" + qos.toLowerCase(Locale.ROOT)).setPool(pool).setPriorityClass(priorityClass)
                    .setPriority(priorityClass.equals("production") ? 100 : priorityClass.equals("batch") ? 50 : 0)
                    .setPreemptible(priorityClass.equals("best-effort"))
                    .setCpuMilliPerNode((long) t.number(i, "cpu_milli")).setMemoryMiBPerNode((long) t.number(i, "memory_mib"))
                    .setSimulatedRuntimeMillis(Math.max(1_000L, Math.round((deleted - created) * 1000)))
                    .setLabels(Map.of("trace", "openb", "trace.gpu_spec", t.hasColumns("gpu_spec") ? t.cell(i, "gpu_spec") : ""));
            if (gpus == 1 && milli > 0 && milli < 1000) {
                b.setNodes(1).setGpusPerNode(1).setGpuMilli(milli);
            } else {
                b.setNodes(1).setGpusPerNode(gpus);
            }
            jobs.add(new TimedJob(Math.round((created - first) * 1000), "openb-" + runTag + "-" + t.cell(i, "name"), b.build()));
        }
        return jobs;
    }
}
