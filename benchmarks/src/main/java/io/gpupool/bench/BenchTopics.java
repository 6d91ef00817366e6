package io.gpupool.bench;

import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;

/** A bench's own topics: every gpupool topic under a prefix, so that it neither reads nor leaves others' records. */
public final class BenchTopics {

    private BenchTopics() {
    }

    /** Every gpupool topic under {@code prefix}. */
    public static TopicCatalog catalog(final String prefix) {
        final Map<String, String> names = new HashMap<>();
        for (final Topic t : Topic.values()) {
            names.put(TopicCatalog.PREFIX + t.id() + ".name", prefix + "." + t.id());
        }
        return TopicCatalog.defaults().withOverrides(names);
    }

    /** Deletes every topic whose name starts with {@code prefix} (internal topics too); says so when it cannot. */
    public static void delete(final String bootstrap, final Properties clientOverrides, final String prefix,
                              final PrintStream progress) {
        final Properties admin = new Properties();
        admin.putAll(clientOverrides);
        admin.put("bootstrap.servers", bootstrap);
        try (Admin a = Admin.create(admin)) {
            final Set<String> all = a.listTopics().names().get(30, TimeUnit.SECONDS);
            final List<String> mine = all.stream().filter(t -> t.startsWith(prefix)).toList();
            a.deleteTopics(mine).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            progress.println("bench: could not delete the bench topics " + prefix + "*: " + e.getMessage());
        }
    }
}
