package io.gpupool.cli.workload;

import io.gpupool.avro.JobRequest;

/**
 * A job and when it arrives, in milliseconds of workload time after the workload's start (a
 * trace's own clock, or the generator's schedule).
 */
public record TimedJob(long arrivalMillis, String jobId, JobRequest request) {
}
