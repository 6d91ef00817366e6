package io.gpupool.cli.workload;

import io.gpupool.avro.JobCancel;
import io.gpupool.avro.JobCommand;
import io.gpupool.avro.JobRequest;
import io.gpupool.avro.JobSubmit;
import java.time.Instant;
import java.util.UUID;

/** Builds the JobCommand records users send: a submit or a cancel, each with a fresh command id. */
public final class JobCommands {

    private JobCommands() {
    }

    public static JobCommand submit(final String jobId, final JobRequest request, final String requestedBy) {
        return JobCommand.newBuilder().setJobId(jobId).setCommandId("submit-" + UUID.randomUUID())
                .setRequestedAt(Instant.now()).setRequestedBy(requestedBy)
                .setCommand(JobSubmit.newBuilder().setRequest(request).build()).build();
    }

    public static JobCommand cancel(final String jobId, final String reason, final String requestedBy) {
        return JobCommand.newBuilder().setJobId(jobId).setCommandId("cancel-" + UUID.randomUUID())
                .setRequestedAt(Instant.now()).setRequestedBy(requestedBy)
                .setCommand(JobCancel.newBuilder().setReason(reason).build()).build();
    }
}
