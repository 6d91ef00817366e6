package io.gpupool.collector.publish;

import io.gpupool.topics.Topic;
import io.gpupool.topics.TopicCatalog;

/** The three topic names a collector writes, resolved from the shared topic catalog. */
public record PublisherTopics(String inventory, String gpu, String link) {
    public static PublisherTopics from(final TopicCatalog catalog) {
        return new PublisherTopics(catalog.name(Topic.INVENTORY), catalog.name(Topic.TELEMETRY_GPU),
                catalog.name(Topic.TELEMETRY_LINK));
    }

    public static PublisherTopics defaults() {
        return from(TopicCatalog.defaults());
    }
}
