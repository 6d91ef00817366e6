package io.gpupool.localstack.topics;

import io.gpupool.topics.TopicSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * Creates or verifies gpupool's topics on any cluster, through the admin client only, so it works
 * the same on the local stack and on a managed cluster with SASL/SSL.
 */
public final class TopicSetup {

    private final Admin admin;
    private final Duration timeout;

    public TopicSetup(final Admin admin, final Duration timeout) {
        this.admin = admin;
        this.timeout = timeout;
    }

    /** Compares every topic with its spec; creates and changes nothing. */
    public List<TopicStatus> verify(final List<TopicSpec> specs) {
        final List<TopicStatus> result = new ArrayList<>();
        for (final TopicSpec spec : specs) {
            result.add(compare(spec));
        }
        return result;
    }

    /**
     * Creates the topics that are missing, then compares the rest. With {@code alterConfigs}, a topic
     * whose configs differ gets the spec's values; partitions and replication are never changed
     * here, because more partitions re-key a topic and that is a decision for a person.
     */
    public List<TopicStatus> apply(final List<TopicSpec> specs, final boolean alterConfigs) {
        final List<TopicStatus> result = new ArrayList<>();
        for (final TopicSpec spec : specs) {
            final TopicStatus before = compare(spec);
            if (before.state() == TopicStatus.State.MISSING) {
                result.add(create(spec));
            } else if (before.state() == TopicStatus.State.DIFFERS && alterConfigs && onlyConfigsDiffer(spec)) {
                alter(spec);
                final TopicStatus after = compareUntilSettled(spec);
                result.add(after.state() == TopicStatus.State.OK
                        ? new TopicStatus(spec, TopicStatus.State.ALTERED, before.differences()) : after);
            } else {
                result.add(before);
            }
        }
        return result;
    }

    private TopicStatus create(final TopicSpec spec) {
        try {
            get(admin.createTopics(List.of(spec.newTopic())).all());
            // The controller has committed it; wait until the brokers' metadata shows it too, so
            // whoever runs next (a verify, a producer, Kafka Streams) finds it.
            final TopicStatus visible = compareUntilSettled(spec);
            return visible.state() == TopicStatus.State.OK
                    ? new TopicStatus(spec, TopicStatus.State.CREATED, List.of()) : visible;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof TopicExistsException) {
                // Someone else created it in between: judge what is there.
                return compare(spec);
            }
            throw failure("create topic " + spec.name(), e);
        }
    }

    /** A config change reaches describeConfigs through the metadata log a moment later, so look again briefly. */
    private TopicStatus compareUntilSettled(final TopicSpec spec) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        TopicStatus status = compare(spec);
        while (status.state() != TopicStatus.State.OK && System.nanoTime() < deadline) {
            try {
                Thread.sleep(100);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return status;
            }
            status = compare(spec);
        }
        return status;
    }

    private TopicStatus compare(final TopicSpec spec) {
        final TopicDescription description;
        try {
            description = get(admin.describeTopics(Set.of(spec.name())).topicNameValues().get(spec.name()));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return new TopicStatus(spec, TopicStatus.State.MISSING, List.of("does not exist"));
            }
            throw failure("describe topic " + spec.name(), e);
        }
        final List<String> differences = new ArrayList<>(shapeDifferences(spec, description));
        differences.addAll(configDifferences(spec));
        return new TopicStatus(spec, differences.isEmpty() ? TopicStatus.State.OK : TopicStatus.State.DIFFERS, differences);
    }

    private static List<String> shapeDifferences(final TopicSpec spec, final TopicDescription description) {
        final List<String> differences = new ArrayList<>();
        final int partitions = description.partitions().size();
        if (partitions != spec.partitions()) {
            differences.add("has " + partitions + " partitions, want " + spec.partitions());
        }
        if (spec.replicationFactor() != TopicSpec.BROKER_DEFAULT_REPLICATION && !description.partitions().isEmpty()) {
            final int replicas = description.partitions().get(0).replicas().size();
            if (replicas != spec.replicationFactor()) {
                differences.add("has replication factor " + replicas + ", want " + spec.replicationFactor());
            }
        }
        return differences;
    }

    private List<String> configDifferences(final TopicSpec spec) {
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, spec.name());
        final Config actual;
        try {
            actual = get(admin.describeConfigs(List.of(resource)).values().get(resource));
        } catch (ExecutionException e) {
            throw failure("describe the configs of topic " + spec.name(), e);
        }
        final List<String> differences = new ArrayList<>();
        for (final Map.Entry<String, String> want : spec.configs().entrySet()) {
            final ConfigEntry entry = actual.get(want.getKey());
            final String have = entry == null ? null : entry.value();
            if (!want.getValue().equals(have)) {
                differences.add(want.getKey() + " is " + (have == null ? "unset" : have) + ", want " + want.getValue());
            }
        }
        return differences;
    }

    private boolean onlyConfigsDiffer(final TopicSpec spec) {
        try {
            final TopicDescription description = get(admin.describeTopics(Set.of(spec.name())).topicNameValues().get(spec.name()));
            return shapeDifferences(spec, description).isEmpty();
        } catch (ExecutionException e) {
            throw failure("describe topic " + spec.name(), e);
        }
    }

    private void alter(final TopicSpec spec) {
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, spec.name());
        final Collection<AlterConfigOp> ops = new ArrayList<>();
        spec.configs().forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        try {
            get(admin.incrementalAlterConfigs(Map.of(resource, ops)).all());
        } catch (ExecutionException e) {
            throw failure("change the configs of topic " + spec.name(), e);
        }
    }

    private <T> T get(final KafkaFuture<T> future) throws ExecutionException {
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TopicSetupException("interrupted while talking to the cluster", e);
        } catch (TimeoutException e) {
            throw new TopicSetupException("the cluster did not answer within " + timeout.toSeconds()
                    + " s; check the bootstrap servers and the client (SASL/SSL) settings", e);
        }
    }

    private static TopicSetupException failure(final String what, final ExecutionException e) {
        final Throwable cause = e.getCause() == null ? e : e.getCause();
        return new TopicSetupException("could not " + what + ": " + cause.getClass().getSimpleName() + ": " + cause.getMessage(), cause);
    }
}
