package io.gpupool.sink.apply;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/** The environment a job's process gets: the job's own variables, then gpupool's, which win. */
public final class ExecEnvironment {

    public static final String JOB_ID = "GPUPOOL_JOB_ID";
    public static final String NODE = "GPUPOOL_NODE";
    public static final String GPU_UUIDS = "GPUPOOL_GPU_UUIDS";
    public static final String DECISION_ID = "GPUPOOL_DECISION_ID";
    public static final String RANK = "GPUPOOL_RANK";
    public static final String GANG_NODES = "GPUPOOL_GANG_NODES";
    public static final String CUDA_VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";

    private ExecEnvironment() {
    }

    /**
     * Device indices, comma-separated. Empty for a job without GPUs: CUDA then shows it none,
     * rather than all of the node's GPUs as an unset variable would.
     */
    public static String cudaVisibleDevices(final JobPart part) {
        return part.gpuIndices().stream().map(String::valueOf).collect(Collectors.joining(","));
    }

    /** Variables to add to the sink's own environment for this part. */
    public static Map<String, String> of(final JobPart part) {
        final Map<String, String> env = new LinkedHashMap<>(part.env());
        // Ours come last: a job must not be able to widen its GPU set through its own env.
        env.put(JOB_ID, part.jobId());
        env.put(NODE, part.nodeId());
        env.put(DECISION_ID, part.decisionId());
        env.put(CUDA_VISIBLE_DEVICES, cudaVisibleDevices(part));
        env.put(GPU_UUIDS, String.join(",", part.gpuUuids()));
        env.put(RANK, Integer.toString(part.rank()));
        env.put(GANG_NODES, String.join(",", part.gangNodes()));
        return env;
    }
}
