package io.gpupool.scheduler.query;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.gpupool.avro.PlacementDecision;
import io.gpupool.scheduler.core.JobView;
import io.gpupool.scheduler.core.NodeView;
import io.gpupool.scheduler.stream.DecisionHistory;
import io.gpupool.scheduler.stream.PoolEngines;
import io.gpupool.scheduler.stream.PoolView;
import io.gpupool.scheduler.stream.SchedulerTopology;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * Interactive queries over HTTP (JSON): GET /pools, /pools/{pool}, /nodes, /nodes/{id}, /jobs/{id},
 * /jobs?state=queued|running|finished|all (with pool, tenant, node filters; {@link JobFilter}), plus /metrics (Prometheus) and /health. A pool lives on the instance that owns
 * its journal partition (queryMetadataForKey); a request for a pool another instance owns is
 * forwarded there. Nodes and jobs are looked for locally first, then on every other instance.
 * {@code ?local=true} answers from this instance only (what forwarded requests use). Answers come from the
 * pools' published views ({@link PoolView}), never the live engine: a slow query cannot hold the placer up.
 * Each says which view it read ({@code view}: its journal offset, the placer's, stream time, age).
 */
public final class QueryServer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpServer server;
    private final Forwarder forwarder = new Forwarder();
    private KafkaStreams streams;
    private PoolEngines engines;
    private PrometheusMeterRegistry meters;
    private String self;
    private Supplier<Optional<String>> threadTrouble = Optional::empty;

    private QueryServer(final HttpServer server) {
        this.server = server;
    }

    /** Binds the port now (so application.server can name it before Streams starts). */
    public static QueryServer bind(final String host, final int port) {
        try {
            return new QueryServer(HttpServer.create(new InetSocketAddress(host, port), 64));
        } catch (IOException e) {
            throw new IllegalStateException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    /** Where /health learns that stream threads keep failing (see {@code StreamThreadPolicy#trouble}). */
    public void reportThreadTrouble(final Supplier<Optional<String>> trouble) {
        this.threadTrouble = trouble;
    }

    public void serve(final KafkaStreams ks, final PoolEngines pools, final PrometheusMeterRegistry registry,
                      final String selfHostPort) {
        this.streams = ks;
        this.engines = pools;
        this.meters = registry;
        this.self = selfHostPort;
        server.setExecutor(Executors.newFixedThreadPool(4, r -> {
            final Thread t = new Thread(r, "gpupool-query");
            t.setDaemon(true);
            return t;
        }));
        server.createContext("/", this::handle);
        server.start();
    }

    private void handle(final HttpExchange ex) throws IOException {
        try {
            if (!"GET".equals(ex.getRequestMethod())) {
                send(ex, 405, error("only GET is supported"));
                return;
            }
            final String path = ex.getRequestURI().getPath();
            final Map<String, String> q = query(ex.getRequestURI().getRawQuery());
            final boolean local = "true".equals(q.get("local"));
            final String[] parts = path.replaceAll("^/+|/+$", "").split("/");
            if (path.equals("/metrics")) {
                final byte[] body = meters.scrape().getBytes(StandardCharsets.UTF_8);
                ex.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                ex.sendResponseHeaders(200, body.length);
                try (OutputStream out = ex.getResponseBody()) {
                    out.write(body);
                }
            } else if (path.equals("/health")) {
                final Health health = Health.of(streams.state(), threadTrouble.get());
                send(ex, health.status(), JSON.writeValueAsString(health.body()));
            } else if (parts.length == 1 && parts[0].equals("pools")) {
                pools(ex, local);
            } else if (parts.length == 2 && parts[0].equals("pools")) {
                pool(ex, decode(parts[1]), local);
            } else if (parts.length == 1 && parts[0].equals("nodes")) {
                nodes(ex, q.get("pool"), local);
            } else if (parts.length == 2 && parts[0].equals("nodes")) {
                node(ex, decode(parts[1]), local);
            } else if (parts.length == 2 && parts[0].equals("jobs")) {
                job(ex, decode(parts[1]), local);
            } else if (parts.length == 1 && parts[0].equals("jobs")) {
                jobs(ex, q, local);
            } else {
                send(ex, 404, error("no such resource " + path
                        + "; try /pools, /pools/{pool}, /nodes, /nodes/{id}, /jobs/{id}, /jobs?state=queued|running|finished|all, /metrics"));
            }
        } catch (RuntimeException e) {
            send(ex, 500, error(e.getClass().getSimpleName() + ": " + e.getMessage()));
        } finally {
            ex.close();
        }
    }

    private void pools(final HttpExchange ex, final boolean local) throws IOException {
        final TreeSet<String> names = new TreeSet<>();
        engines.all().forEach(h -> names.add(h.pool()));
        if (!local) {
            for (final String other : others()) {
                final Forwarder.Answer a = forwarder.get(other, "/pools");
                if (a.status() == 200) {
                    names.addAll(JSON.readValue(a.body(), new TypeReference<List<String>>() { }));
                }
            }
        }
        send(ex, 200, JSON.writeValueAsString(names));
    }

    private void pool(final HttpExchange ex, final String pool, final boolean local) throws IOException {
        if (!local) {
            final KeyQueryMetadata owner = streams.queryMetadataForKey(SchedulerTopology.SNAPSHOT_STORE, pool,
                    new StringSerializer());
            if (owner == null || owner == KeyQueryMetadata.NOT_AVAILABLE) {
                send(ex, 503, error("the scheduler is (re)balancing; ask again shortly"));
                return;
            }
            final String ownerHost = owner.activeHost().host() + ":" + owner.activeHost().port();
            if (!ownerHost.equals(self)) {
                final Forwarder.Answer a = forwarder.get(ownerHost, "/pools/" + encode(pool));
                send(ex, a.status(), a.body());
                return;
            }
        }
        final Optional<PoolEngines.Handle> h = engines.pool(pool);
        if (h.isEmpty()) {
            send(ex, 404, error("no pool " + pool + " (it has no journal entries yet)"));
            return;
        }
        final Optional<PoolView> view = h.get().views().current();
        if (view.isEmpty()) {
            send(ex, 503, error("pool " + pool + " has no view published yet; ask again shortly"));
            return;
        }
        send(ex, 200, JSON.writeValueAsString(Views.pool(view.get(), h.get().journalOffset())));
    }

    private void node(final HttpExchange ex, final String nodeId, final boolean local) throws IOException {
        askEveryPool();
        for (final PoolEngines.Handle h : engines.all()) {
            final Optional<PoolView> view = h.views().current();
            final Optional<Map<String, Object>> v = view.flatMap(p -> p.node(nodeId)
                    .map(n -> Views.node(p, n, h.journalOffset())));
            if (v.isPresent()) {
                send(ex, 200, JSON.writeValueAsString(v.get()));
                return;
            }
        }
        fanOutOrNotFound(ex, local, "/nodes/" + encode(nodeId), "no node " + nodeId);
    }

    private void job(final HttpExchange ex, final String jobId, final boolean local) throws IOException {
        final List<PlacementDecision> history = history(jobId);
        askEveryPool();
        for (final PoolEngines.Handle h : engines.all()) {
            final Optional<PoolView> view = h.views().current();
            final Optional<JobView> v = view.flatMap(p -> p.job(jobId));
            if (v.isPresent()) {
                final Map<String, Object> answer = Views.job(view.get(), v.get(), history, h.journalOffset());
                view.get().advice(jobId).ifPresent(a -> answer.put("advice", Views.advice(a)));
                send(ex, 200, JSON.writeValueAsString(answer));
                return;
            }
        }
        if (!history.isEmpty()) {
            send(ex, 200, JSON.writeValueAsString(Views.jobFromHistory(history)));
            return;
        }
        fanOutOrNotFound(ex, local, "/jobs/" + encode(jobId), "no job " + jobId);
    }

    private void jobs(final HttpExchange ex, final Map<String, String> q, final boolean local) throws IOException {
        final JobFilter filter;
        try {
            filter = JobFilter.of(q);
        } catch (JobFilter.BadFilter e) {
            send(ex, 400, error(e.getMessage()));
            return;
        }
        final List<Object> all = new ArrayList<>();
        askEveryPool();
        for (final PoolEngines.Handle h : engines.all()) {
            final Optional<PoolView> view = h.views().current();
            if (view.isEmpty() || !filter.wantsPool(h.pool())) {
                continue;
            }
            final List<JobView> jobs = new ArrayList<>();
            if (filter.states().contains(JobFilter.Group.RUNNING)) {
                jobs.addAll(view.get().runningJobs());
            }
            if (filter.states().contains(JobFilter.Group.QUEUED)) {
                jobs.addAll(view.get().queuedJobs()); // explains each: only when asked for
            }
            if (filter.states().contains(JobFilter.Group.FINISHED)) {
                jobs.addAll(view.get().finishedJobs());
            }
            for (final JobView j : jobs) {
                if (filter.wants(j)) {
                    all.add(Views.job(view.get(), j, List.of(), h.journalOffset()));
                }
            }
        }
        collectFromOthers(local, "/jobs?" + filter.toQuery(), all);
        send(ex, 200, JSON.writeValueAsString(all));
    }

    private void nodes(final HttpExchange ex, final String pool, final boolean local) throws IOException {
        final List<Object> all = new ArrayList<>();
        askEveryPool();
        for (final PoolEngines.Handle h : engines.all()) {
            final Optional<PoolView> view = h.views().current();
            if (view.isEmpty() || (pool != null && !pool.equals(h.pool()))) {
                continue;
            }
            for (final NodeView n : view.get().nodes()) {
                all.add(Views.node(view.get(), n, h.journalOffset()));
            }
        }
        collectFromOthers(local, pool == null ? "/nodes" : "/nodes?pool=" + encode(pool), all);
        send(ex, 200, JSON.writeValueAsString(all));
    }

    /** Adds the other instances' local answers (JSON lists) to {@code all}, unless this is a forwarded request. */
    private void collectFromOthers(final boolean local, final String pathAndQuery, final List<Object> all)
            throws IOException {
        if (local) {
            return;
        }
        for (final String other : others()) {
            final Forwarder.Answer a = forwarder.get(other, pathAndQuery);
            if (a.status() == 200) {
                all.addAll(JSON.readValue(a.body(), new TypeReference<List<Object>>() { }));
            }
        }
    }

    /**
     * Asks for a view of every pool before reading any, so that the placer publishes them all at its next
     * punctuation and a query over many pools waits about once, not once a pool.
     */
    private void askEveryPool() {
        engines.all().forEach(h -> h.views().latest());
    }

    private List<PlacementDecision> history(final String jobId) {
        return DecisionHistory.of(jobId, engines, id -> {
            try {
                final ReadOnlyKeyValueStore<String, byte[]> store = streams.store(StoreQueryParameters.fromNameAndType(
                        DecisionHistory.STORE, QueryableStoreTypes.<String, byte[]>keyValueStore()));
                return store.get(id);
            } catch (InvalidStateStoreException e) {
                return null; // rebalancing or no task here: the engine view still answers
            }
        });
    }

    private void fanOutOrNotFound(final HttpExchange ex, final boolean local, final String path, final String notFound)
            throws IOException {
        if (!local) {
            for (final String other : others()) {
                final Forwarder.Answer a = forwarder.get(other, path);
                if (a.status() == 200) {
                    send(ex, 200, a.body());
                    return;
                }
            }
        }
        send(ex, 404, error(notFound));
    }

    private List<String> others() {
        final List<String> out = new ArrayList<>();
        for (final StreamsMetadata m : streams.metadataForAllStreamsClients()) {
            final String hp = m.hostInfo().host() + ":" + m.hostInfo().port();
            if (!hp.equals(self) && m.hostInfo().port() > 0) {
                out.add(hp);
            }
        }
        return out;
    }

    private static Map<String, String> query(final String raw) {
        final Map<String, String> m = new LinkedHashMap<>();
        if (raw == null) {
            return m;
        }
        for (final String kv : raw.split("&")) {
            final int eq = kv.indexOf('=');
            if (eq > 0) {
                m.put(decode(kv.substring(0, eq)), decode(kv.substring(eq + 1)));
            }
        }
        return m;
    }

    private static String decode(final String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    private static String encode(final String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static String error(final String message) {
        try {
            return JSON.writeValueAsString(Map.of("error", message));
        } catch (IOException e) {
            return "{\"error\":\"?\"}";
        }
    }

    private static void send(final HttpExchange ex, final int status, final String body) throws IOException {
        final byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, b.length);
        try (OutputStream out = ex.getResponseBody()) {
            out.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
