package io.gpupool.bench.pipeline;

import io.gpupool.scheduler.journal.TopicNames;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;

/**
 * Where the scheduler's backlog sits: for its inputs and its journal, the records committed to a topic that
 * the scheduler has not yet committed as read. A backlog at the inputs is records not yet routed; one in the
 * journal is requests and reports routed but not yet applied by the placer, in the one order the placer must
 * take them. Read on a thread of its own every 5 s (an admin round trip must not pause the offered load).
 */
final class SchedulerLag implements AutoCloseable {
    private final Admin admin;
    private final String group;
    private final Map<String, String> names = new LinkedHashMap<>();
    private final Thread reader;
    private volatile String line = "lag unknown";

    SchedulerLag(final String bootstrapServers, final Properties clientOverrides, final String group, final TopicNames t) {
        final Properties p = new Properties();
        p.putAll(clientOverrides);
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        this.admin = Admin.create(p);
        this.group = group;
        names.put(t.jobs(), "jobs");
        names.put(t.jobEvents(), "job_events");
        names.put(t.telemetryGpu(), "telemetry_gpu");
        names.put(t.journal(), "journal");
        reader = new Thread(this::readEvery5s, "bench-scheduler-lag");
        reader.setDaemon(true);
        reader.start();
    }

    /** {@code lag_jobs=N lag_job_events=N lag_telemetry_gpu=N lag_journal=N}, from the last read. */
    String line() {
        return line;
    }

    private void readEvery5s() {
        while (true) {
            try {
                line = read();
            } catch (final InterruptedException e) {
                return;
            } catch (final Exception e) { // a broker busy or away: said on the line, and asked again in 5 s
                line = "lag unknown (" + e.getClass().getSimpleName() + ")";
            }
            try {
                Thread.sleep(5_000);
            } catch (final InterruptedException e) {
                return;
            }
        }
    }

    private String read() throws Exception {
        final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
        final Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        committed.keySet().stream().filter(tp -> names.containsKey(tp.topic())).forEach(tp -> latest.put(tp, OffsetSpec.latest()));
        final var ends = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED)).all()
                .get(10, TimeUnit.SECONDS);
        final Map<String, Long> lag = new LinkedHashMap<>();
        names.values().forEach(n -> lag.put(n, 0L));
        ends.forEach((tp, end) -> {
            final OffsetAndMetadata at = committed.get(tp);
            lag.merge(names.get(tp.topic()), Math.max(0, end.offset() - (at == null ? 0 : at.offset())), Long::sum);
        });
        final StringBuilder b = new StringBuilder();
        lag.forEach((n, v) -> b.append(b.length() == 0 ? "" : " ").append("lag_").append(n).append('=').append(v));
        return b.toString();
    }

    @Override
    public void close() {
        reader.interrupt();
        admin.close();
    }
}
