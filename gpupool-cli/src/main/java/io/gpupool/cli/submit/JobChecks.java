package io.gpupool.cli.submit;

import io.gpupool.avro.JobRequest;
import io.gpupool.avro.TopologyMode;
import io.gpupool.avro.TopologyScope;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The checks a request must pass before it is sent, each failure worded as the fix. The scheduler
 * checks the same (it must: not every producer is this CLI) but answers only with a REJECTED decision.
 */
final class JobChecks {

    /** As the scheduler accepts them: ids travel as record keys, file names and label values. */
    static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@/-]{0,199}");
    private static final Set<String> CLASSES = Set.of("production", "batch", "best-effort");

    private JobChecks() {
    }

    /** What is wrong with the request, as the fix; null when it can be sent. */
    static String problem(final String jobId, final JobRequest r) {
        if (!JOB_ID.matcher(jobId).matches()) {
            return "job id '" + jobId + "' is malformed: use 1-200 of A-Z a-z 0-9 . _ : @ / -, starting with a letter or digit";
        }
        if (r.getTenant().isBlank()) {
            return "the tenant is empty: give --tenant NAME";
        }
        if (r.getPool().isBlank()) {
            return "the pool is empty: give --pool NAME (the local stack's is 'default')";
        }
        if (r.getNodes() < 1) {
            return "--nodes " + r.getNodes() + ": a job runs on at least 1 node";
        }
        if (r.getGpuMilli() != null) {
            if (r.getGpuMilli() < 1 || r.getGpuMilli() > 999) {
                return "--gpu-milli " + r.getGpuMilli() + " is not a share of one GPU: use 1-999 (e.g. 500 = half), "
                        + "or --gpus N for whole GPUs";
            }
            if (r.getNodes() > 1) {
                return "a share of one GPU (--gpu-milli) runs on one node: drop --nodes " + r.getNodes() + " or use --gpus";
            }
        } else if (r.getGpusPerNode() < 0) {
            return "--gpus " + r.getGpusPerNode() + ": the number of whole GPUs per node must be >= 1; "
                    + "for a share of one GPU use --gpu-milli M (1-999) instead";
        } else if (r.getGpusPerNode() < 1) {
            return "the job asks for no GPU: give --gpus N (whole GPUs per node) or --gpu-milli M (a share of one GPU)";
        }
        if (r.getPriorityClass() != null
                && !CLASSES.contains(r.getPriorityClass().trim().toLowerCase(Locale.ROOT).replace('_', '-'))) {
            return "priority class '" + r.getPriorityClass() + "' is unknown: use production, batch or best-effort";
        }
        if (negative(r.getGpuMemoryMiB()) || negative(r.getCpuMilliPerNode()) || negative(r.getMemoryMiBPerNode())) {
            return "GPU memory, CPU and memory requests cannot be negative";
        }
        if (negative(r.getRuntimeEstimateMillis()) || negative(r.getSimulatedRuntimeMillis())) {
            return "runtimes cannot be negative";
        }
        if (r.getTopologyMode() == TopologyMode.REQUIRED && r.getTopology() == TopologyScope.NONE) {
            return "--topology-mode required needs a scope: add --topology same-node, same-leaf or same-spine";
        }
        if (r.getRejectIfDeadlineMissed() && r.getDeadline() == null) {
            return "--reject-if-late needs --deadline (an ISO instant or +2h)";
        }
        if (r.getExec() != null && r.getExec().getCommand().isEmpty() && !r.getExec().getArgs().isEmpty()) {
            return "--arg without a command: put the program after `--`, e.g. -- python train.py";
        }
        return null;
    }

    private static boolean negative(final Long v) {
        return v != null && v < 0;
    }
}
