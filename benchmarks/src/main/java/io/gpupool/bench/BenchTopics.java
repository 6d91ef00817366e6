package io.gpupool.bench;

import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/** A bench's own topics: every gpupool topic under a prefix, so that it neither reads nor leaves others' records. */
public final class BenchTopics {

    private static final AtomicLong RUNS = new AtomicLong();

    private BenchTopics() {
    }

    /**
     * A run's own prefix: the kind of run, the time, this process and a count. The time alone is not enough:
     * two runs started in the same millisecond (two tests waiting on one shared stack and released together)
     * shared their topics and application id, and the first to finish deleted the other's topics.
     */
    public static String runPrefix(final String kind) {
        return kind + "-" + System.currentTimeMillis() + "-" + ProcessHandle.current().pid() + "-" + RUNS.incrementAndGet();
    }

    /** Every gpupool topic under {@code prefix}. */
    public static TopicCatalog catalog(final String prefix) {
        final Map<String, String> names = new HashMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        return TopicCatalog.defaults().withOverrides(names);
    }

    /**
     * Deletes every topic under {@code prefix}: its own ({@code prefix.}) and the internal ones of the
     * applications it named ({@code prefix-}), never those of a run whose prefix only starts like it ("run-1" and
     * "run-10"). Says so when it cannot.
     */
    public static void delete(final String bootstrap, final Properties clientOverrides, final String prefix,
                              final PrintStream progress) {
        final Properties admin = new Properties();
        admin.putAll(clientOverrides);
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            final Set<String> all = a.listTopics().names().get(30, TimeUnit.SECONDS);
            final List<String> mine = all.stream().filter(t -> isUnder(prefix, t)).toList();
            a.deleteTopics(mine).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            progress.println("bench: could not delete the bench topics " + prefix + "*: " + e);
        }
    }

    /** Whether {@code topic} is one of the run {@code prefix}'s: its own or an internal one of its applications. */
    static boolean isUnder(final String prefix, final String topic) {
        return topic.startsWith(prefix + ".") || topic.startsWith(prefix + "-");
    }

    /**
     * Creates {@code names} with {@code partitions} each and returns once every partition has a leader that
     * serves it. {@code createTopics} completes when the controller has committed the topic, and a broker
     * publishes new metadata to its metadata cache before its replica manager has created the partitions: a
     * producer that sends at once can see a leader, get NOT_LEADER_OR_FOLLOWER for its first batches and
     * OUT_OF_ORDER_SEQUENCE_NUMBER for the batches in flight behind them (the broker knows no sequence for
     * the producer yet, so anything but sequence 0 is out of order). The pass-through backlog was produced
     * that way, without looking at the sends' results, and its reader waited for a fixed count: a batch
     * that never got in left it waiting its full 300 s. A list-offsets answer comes from the partition
     * itself, so it proves the partition is served.
     */
    public static void createAndAwaitLeaders(final String bootstrap, final Properties clientOverrides,
                                             final List<String> names, final int partitions) throws Exception {
        final Properties admin = new Properties();
        admin.putAll(clientOverrides);
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            a.createTopics(names.stream().map(n -> new NewTopic(n, partitions, (short) -1)).toList()).all()
                    .get(60, TimeUnit.SECONDS);
            final long deadline = System.currentTimeMillis() + 60_000;
            while (!served(a, names, partitions)) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IllegalStateException("topics " + names + " have no leader for every partition after 60 s");
                }
                Thread.sleep(100);
            }
        }
    }

    private static boolean served(final Admin a, final List<String> names, final int partitions) throws Exception {
        final Map<TopicPartition, OffsetSpec> ends = new HashMap<>();
        try {
            for (final TopicDescription d : a.describeTopics(names).allTopicNames().get(30, TimeUnit.SECONDS).values()) {
                if (d.partitions().size() != partitions || d.partitions().stream().anyMatch(p -> p.leader() == null)) {
                    return false;
                }
                d.partitions().forEach(p -> ends.put(new TopicPartition(d.name(), p.partition()), OffsetSpec.latest()));
            }
            a.listOffsets(ends).all().get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            return false; // not yet known or not yet served: look again
        }
    }
}
