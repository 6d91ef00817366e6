package io.gpupool.scheduler.stream;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The placer's notice that a submit needs its stage-1 route no more ({@link JobRoute}): the submit was
 * rejected without taking its job id, or the job's record expired. Stage 2 cannot reach stage 1's route
 * store (routes are partitioned by job id, engines by pool), so the notice goes onto the topic stage 1
 * routes from, {@code <application id>-jobs-by-id-repartition}, keyed by job id like every record there:
 * it reaches the task that holds the route, in the placer's transaction. Only the application writes
 * that topic; a notice is told from a job record by its header and by having no {@link Origin} (every job
 * record crosses the hop with one, so a header a client put on its record makes no notice). The value is
 * the submit's command id.
 */
final class RouteEnds {
    static final String SINK = "route-ends-sink";
    /** Header naming the pool of the submit; its presence makes a record a notice. */
    static final String POOL = "gpupool.route-end.pool";
    /** Header present when the notice is the job record's expiry (it also closes a route of the old form). */
    static final String EXPIRED = "gpupool.route-end.expired";

    /** @param expired the record expired, as opposed to a submit rejected without a record */
    record Notice(String jobId, String commandId, String pool, boolean expired) {
    }

    private RouteEnds() {
    }

    /** The topic stage 1 routes job records from, which notices go onto. */
    static String topic(final String applicationId) {
        return applicationId + "-" + SchedulerTopology.JOBS_BY_ID + "-repartition";
    }

    static Record<Object, Object> record(final Notice n, final long timestamp) {
        final Headers h = new RecordHeaders().add(POOL, n.pool().getBytes(StandardCharsets.UTF_8));
        if (n.expired()) {
            h.add(EXPIRED, new byte[0]);
        }
        return new Record<>(n.jobId(), n.commandId(), timestamp, h);
    }

    /** The notice a record of the routing topic is, or null when it is a job record. */
    static Notice read(final Record<byte[], byte[]> record) {
        final Header pool = record.headers().lastHeader(POOL);
        if (pool == null || pool.value() == null || Origin.isCopy(record.headers())
                || record.key() == null || record.value() == null) {
            return null;
        }
        return new Notice(new String(record.key(), StandardCharsets.UTF_8),
                new String(record.value(), StandardCharsets.UTF_8), new String(pool.value(), StandardCharsets.UTF_8),
                record.headers().lastHeader(EXPIRED) != null);
    }
}
