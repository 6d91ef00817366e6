package io.gpupool.simulator.trace;

/**
 * One job of the Philly trace as processed for Pollux.
 *
 * @param id stable id derived from the trace line, so results can be joined back to the trace
 * @param submitSecond submission, seconds since the Unix epoch (trace times read as UTC)
 * @param durationSeconds run time; the simulator uses it for completions only, never shows it to the engine
 * @param virtualCluster the Philly virtual cluster (the trace's "cluster" column)
 */
public record PhillyJob(String id, long submitSecond, long durationSeconds, int gpuCount, String virtualCluster) {
}
