package io.gpupool.scheduler.journal;

import io.gpupool.avro.JobRequest;
import io.gpupool.avro.NetworkRequirement;
import io.gpupool.avro.TopologyScope;
import io.gpupool.avro.TopologyMode;
import io.gpupool.scheduler.core.GangScope;
import io.gpupool.scheduler.core.JobSpec;
import io.gpupool.scheduler.core.Network;
import io.gpupool.scheduler.core.PriorityClass;
import java.util.regex.Pattern;

/**
 * JobRequest (the wire record) to the engine's JobSpec, after the checks the engine cannot make
 * because they are about the wire form: a well-formed job id, known constraint values, at least one
 * GPU (gpupool schedules GPU jobs), a milli-GPU share inside 1-999, no negative runtime estimate, a
 * deadline after the epoch (the engine's 0 means none). Capacity checks (unknown model, gang larger
 * than the pool) are the engine's.
 */
public final class JobRequestMapper {
    /**
     * Reason code of a request whose constraint names a value this scheduler does not know. Decided here,
     * before the engine (like SCHEDULER_ERROR), so it is no engine ReasonCode and no snapshot holds it.
     */
    public static final String UNKNOWN_VALUE = "UNKNOWN_VALUE";
    /** Job ids travel as record keys, file names and label values: keep them plain. */
    static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:@/-]{0,199}");

    private JobRequestMapper() {
    }

    /** Why the job id is malformed, or null when it is fine. */
    public static String badJobId(final String jobId) {
        if (jobId == null || jobId.isEmpty()) {
            return "job id is empty";
        }
        if (!JOB_ID.matcher(jobId).matches()) {
            return "job id '" + printable(jobId) + "' is malformed: use 1-200 of A-Z a-z 0-9 . _ : @ / -, starting with a letter or digit";
        }
        return null;
    }

    /** Why the request is invalid on its face, or null. */
    public static String invalid(final JobRequest r) {
        if (r.getGpuMilli() != null) {
            if (r.getGpuMilli() < 1 || r.getGpuMilli() > 999) {
                return "gpuMilli must be 1-999 for a share of one GPU, got " + r.getGpuMilli();
            }
        } else if (r.getGpusPerNode() <= 0) {
            return "the job asks for " + r.getGpusPerNode() + " GPUs per node; at least 1 is needed";
        }
        if (r.getNodes() <= 0) {
            return "the job asks for " + r.getNodes() + " nodes; at least 1 is needed";
        }
        if (r.getRuntimeEstimateMillis() != null && r.getRuntimeEstimateMillis() < 0) {
            return "runtimeEstimateMillis must not be negative (null: learn it from finished jobs), got "
                    + r.getRuntimeEstimateMillis();
        }
        // the engine reads deadline 0 as "none", so a deadline at or before the epoch would be dropped silently
        if (r.getDeadline() != null && r.getDeadline().toEpochMilli() <= 0) {
            return "deadline " + r.getDeadline() + " is not after 1970-01-01T00:00:00Z (null: no deadline)";
        }
        return null;
    }

    /**
     * Why a constraint names a value this scheduler does not know, or null. A client with a newer
     * schema may send an enum symbol the scheduler's schema lacks; Avro reads it as the enum's default,
     * UNKNOWN, and placing the job without that constraint would break it silently: such a job is
     * rejected (UNKNOWN_VALUE), as is UNKNOWN itself and a priority class that is not one of ours.
     */
    public static String unknownValue(final JobRequest r) {
        if (r.getNetwork() == NetworkRequirement.UNKNOWN) {
            return unknownSymbol("network", NetworkRequirement.values());
        }
        if (r.getTopology() == TopologyScope.UNKNOWN) {
            return unknownSymbol("topology", TopologyScope.values());
        }
        if (r.getTopologyMode() == TopologyMode.UNKNOWN) {
            return unknownSymbol("topologyMode", TopologyMode.values());
        }
        if (r.getPriorityClass() != null) {
            try {
                PriorityClass.parse(r.getPriorityClass());
            } catch (IllegalArgumentException e) {
                return e.getMessage();
            }
        }
        return null;
    }

    private static String unknownSymbol(final String field, final Enum<?>[] symbols) {
        final StringBuilder known = new StringBuilder();
        for (final Enum<?> s : symbols) {
            if (!s.name().equals("UNKNOWN")) {
                known.append(known.length() == 0 ? "" : ", ").append(s.name());
            }
        }
        return field + " is a value this scheduler does not know (UNKNOWN, or a symbol of a newer schema, which Avro"
                + " reads as UNKNOWN); the job is not placed without that constraint: use one of " + known;
    }

    public static JobSpec toSpec(final String jobId, final JobRequest r) {
        final boolean share = r.getGpuMilli() != null;
        return new JobSpec(jobId, r.getName(), r.getTenant(),
                r.getPriorityClass() == null ? PriorityClass.BATCH : PriorityClass.parse(r.getPriorityClass()),
                r.getPriority(),
                r.getNodes(),
                share ? 1 : r.getGpusPerNode(),
                share ? r.getGpuMilli() : JobSpec.WHOLE_GPU_MILLI,
                r.getGpuMemoryMiB() == null ? 0 : r.getGpuMemoryMiB(),
                r.getCpuMilliPerNode() == null ? 0 : r.getCpuMilliPerNode(),
                r.getMemoryMiBPerNode() == null ? 0 : r.getMemoryMiBPerNode(),
                r.getGpuModels(),
                topology(r),
                r.getTopologyMode() == TopologyMode.REQUIRED,
                network(r),
                r.getPreemptible(),
                r.getDeadline() == null ? 0 : r.getDeadline().toEpochMilli(),
                r.getRejectIfDeadlineMissed(),
                r.getRuntimeEstimateMillis() == null ? 0 : r.getRuntimeEstimateMillis(),
                false);
    }

    private static GangScope topology(final JobRequest r) {
        return switch (r.getTopology()) {
            case SAME_NODE -> GangScope.NODE;
            case SAME_LEAF -> GangScope.LEAF;
            case SAME_SPINE -> GangScope.SPINE;
            default -> GangScope.POOL;
        };
    }

    private static Network network(final JobRequest r) {
        return switch (r.getNetwork()) {
            case INFINIBAND -> Network.INFINIBAND;
            case ROCE -> Network.ROCE;
            default -> Network.ANY;
        };
    }

    private static String printable(final String s) {
        final String cut = s.length() > 60 ? s.substring(0, 60) + "..." : s;
        return cut.replaceAll("\\p{Cntrl}", "?");
    }
}
