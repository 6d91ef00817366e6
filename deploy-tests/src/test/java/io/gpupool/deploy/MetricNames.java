package io.gpupool.deploy;

import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Metric names in PromQL, and those only the scheduler stream (and the commands it sends) produce. */
final class MetricNames {
    private static final Pattern NAME = Pattern.compile("(?<![\\w\"])((?:gpupool|kafka)_[a-z0-9_]*[a-z0-9])(?![\\w(])");

    /**
     * Series that appear only once the scheduler runs: its own meters, its Kafka Streams client
     * metrics, and the sink's per-command meters (commands come from the scheduler).
     */
    static final Set<String> FROM_SCHEDULER = Set.of(
            "gpupool_gpus", "gpupool_queue_depth", "gpupool_queue_depth_tenant", "gpupool_fragmentation",
            "gpupool_decisions_total", "gpupool_request_to_decision_seconds_bucket", "gpupool_preemptions_total",
            "gpupool_journal_lag_seconds", "gpupool_journal_appends_total", "gpupool_dlq_records_total",
            "gpupool_journal_backlog_entries", "gpupool_requests_shed_total",
            "gpupool_leaf_uplink_utilization_ratio", "gpupool_leaf_uplink_nodes",
            "gpupool_tenant_gpus", "gpupool_tenant_quota_gpus", "gpupool_gpus_allocated_idle",
            "gpupool_queue_wait_seconds_bucket",
            "kafka_consumer_fetch_manager_records_lag_max", "kafka_stream_alive_stream_threads",
            "kafka_stream_failed_stream_threads_total", "kafka_stream_client_state", "kafka_stream_thread_thread_state",
            "kafka_stream_thread_task_created_rate", "kafka_stream_thread_task_closed_rate",
            "kafka_stream_task_active_process_ratio",
            "kafka_stream_thread_commit_latency_avg", "kafka_stream_thread_commit_latency_max",
            "gpupool_sink_commands_applied_total", "gpupool_sink_commands_failed_total");

    /** Counters registered on their first event, which a short run may never see; checked in the sources instead. */
    static final Set<String> ON_FIRST_EVENT = Set.of(
            "gpupool_preemptions_total", "gpupool_sink_commands_failed_total", "gpupool_sink_commands_dead_lettered_total",
            "gpupool_requests_shed_total");

    /** The Micrometer meter name a Prometheus name comes from: gpupool_sink_commands_failed_total is gpupool.sink.commands.failed. */
    static String meterName(final String prometheusName) {
        return prometheusName.replaceFirst("_total$", "").replace('_', '.');
    }

    private MetricNames() {
    }

    static Set<String> in(final String promql) {
        final Set<String> out = new TreeSet<>();
        final Matcher m = NAME.matcher(promql);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }
}
