package io.gpupool.scheduler.query;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.streams.KafkaStreams;

/**
 * The answer of /health: the Streams state, and whether this scheduler is healthy. A client that is
 * shutting down, stopped or in error is not, and neither is one whose threads keep failing, whatever
 * state Streams reports meanwhile (a replaced thread brings the client back to RUNNING).
 *
 * @param reason why it is not healthy; null when it is
 */
record Health(String state, boolean healthy, String reason) {

    static Health of(final KafkaStreams.State state, final Optional<String> threadTrouble) {
        if (threadTrouble.isPresent()) {
            return new Health(state.name(), false, threadTrouble.get());
        }
        switch (state) {
            case PENDING_ERROR:
            case ERROR:
            case PENDING_SHUTDOWN:
            case NOT_RUNNING:
                return new Health(state.name(), false, "Kafka Streams is " + state);
            default:
                return new Health(state.name(), true, null);
        }
    }

    /** 200 when healthy, 503 when not (what a liveness probe or load balancer reads). */
    int status() {
        return healthy ? 200 : 503;
    }

    Map<String, Object> body() {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("state", state);
        m.put("healthy", healthy);
        if (reason != null) {
            m.put("reason", reason);
        }
        return m;
    }
}
