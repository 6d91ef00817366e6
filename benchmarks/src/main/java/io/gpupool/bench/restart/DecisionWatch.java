package io.gpupool.bench.restart;

import io.gpupool.avro.DecisionOutcome;
import io.gpupool.avro.PlacementDecision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.Deserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads the decisions topic as a sink would (read_committed) on a thread of its own: every decision once, by
 * job, the decision ids seen more than once, and the first decision caused by an input written after a given
 * moment, which only a scheduler started after that moment can have made.
 */
final class DecisionWatch implements AutoCloseable {
    private static final Set<DecisionOutcome> FINAL = Set.of(DecisionOutcome.RELEASED, DecisionOutcome.REJECTED);

    private final KafkaConsumer<String, PlacementDecision> consumer;
    private final Thread thread;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, List<DecisionOutcome>> byJob = new HashMap<>();
    private final Map<String, Integer> timesSeen = new HashMap<>();
    private long decisions;
    private long newerThanMs = Long.MAX_VALUE;
    private CompletableFuture<Long> firstNewer = new CompletableFuture<>();

    DecisionWatch(final Properties clients, final String topic, final Deserializer<PlacementDecision> values) {
        final Properties p = new Properties();
        p.putAll(clients);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 10);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, topic + "-restart-bench");
        consumer = new KafkaConsumer<>(p, new StringDeserializer(), values);
        consumer.subscribe(List.of(topic));
        thread = new Thread(this::run, "restart-bench-decisions");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stop.get()) {
            for (final ConsumerRecord<String, PlacementDecision> r : consumer.poll(Duration.ofMillis(50))) {
                final long now = System.nanoTime();
                synchronized (this) {
                    decisions++;
                    timesSeen.merge(r.value().getDecisionId(), 1, Integer::sum);
                    byJob.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value().getOutcome());
                    if (r.timestamp() > newerThanMs) {
                        firstNewer.complete(now);
                    }
                }
            }
        }
        consumer.close();
    }

    /** Completes with the System.nanoTime() at which the first decision caused by an input after {@code epochMs} arrived. */
    synchronized CompletableFuture<Long> firstDecisionAfter(final long epochMs) {
        newerThanMs = epochMs;
        firstNewer = new CompletableFuture<>();
        return firstNewer;
    }

    synchronized long decisions() {
        return decisions;
    }

    /** Decision ids read more than once. */
    synchronized long duplicated() {
        return timesSeen.values().stream().filter(n -> n > 1).count();
    }

    /** Of these jobs, those with no final decision (RELEASED or REJECTED) yet. */
    synchronized long unfinished(final Iterable<String> jobs) {
        long n = 0;
        for (final String j : jobs) {
            final List<DecisionOutcome> l = byJob.get(j);
            if (l == null || !FINAL.contains(l.get(l.size() - 1))) {
                n++;
            }
        }
        return n;
    }

    /** Of these jobs, those without a final decision, counted by their last decision ("NONE": not decided yet). */
    synchronized Map<String, Integer> unfinishedByLastDecision(final Iterable<String> jobs) {
        final Map<String, Integer> byLast = new TreeMap<>();
        for (final String j : jobs) {
            final List<DecisionOutcome> l = byJob.get(j);
            if (l == null || !FINAL.contains(l.get(l.size() - 1))) {
                byLast.merge(l == null ? "NONE" : l.get(l.size() - 1).name(), 1, Integer::sum);
            }
        }
        return byLast;
    }

    @Override
    public void close() throws InterruptedException {
        stop.set(true);
        thread.join(10_000);
    }
}
