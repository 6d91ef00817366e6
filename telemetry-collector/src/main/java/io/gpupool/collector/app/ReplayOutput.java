package io.gpupool.collector.app;

import io.gpupool.avro.GpuSamples;
import io.gpupool.avro.NodeInventory;
import io.gpupool.collector.dcgm.DcgmScrapeMapper;
import io.gpupool.collector.fabric.Attachment;
import io.gpupool.collector.fabric.FabricMap;
import io.gpupool.collector.gpu.GpuSnapshot;
import io.gpupool.collector.json.RecordJson;
import io.gpupool.collector.live.GpuSource;
import io.gpupool.collector.live.NodeCollector;
import io.gpupool.collector.nvidiasmi.NvidiaSmiOutput;
import io.gpupool.collector.sysfs.InfinibandSysfsReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dry runs of {@code gpupool collector}: read saved output (or a copied sysfs tree, or a fabric
 * description) and show, as JSON, exactly the records a live collector would publish from it.
 */
public final class ReplayOutput {
    private ReplayOutput() {
    }

    /** GpuSamples for every snapshot in a saved nvidia-smi output or capture file, plus the inventory. */
    public static String nvidiaSmiFile(final Path file, final String nodeId, final String pool, final Instant at)
            throws IOException {
        final List<GpuSnapshot> snapshots = NvidiaSmiOutput.read(file.toString(), read(file));
        return gpuReplay("nvidia-smi", snapshots, nodeId, pool, at);
    }

    public static String dcgmFile(final Path file, final String nodeId, final String pool, final Instant at)
            throws IOException {
        return gpuReplay("dcgm", List.of(DcgmScrapeMapper.map(file.toString(), read(file))), nodeId, pool, at);
    }

    /** One LinkSamples from a sysfs tree (rates are null: one read has no delta) and the inventory. */
    public static String sysfs(final Path root, final String nodeId, final String pool, final FabricMap fabric,
            final Instant at) throws InterruptedException {
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("--sysfs-root " + root + " is not a directory (expected a copy of /sys/class/infiniband)");
        }
        final NodeCollector c = new NodeCollector(nodeId, pool, null, null, new InfinibandSysfsReader(root), null,
                fabric, Map.of(), 0).notThisHost();
        final var frame = c.poll(at);
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("linkSamples", List.of(RecordJson.plain(frame.link())));
        out.put("inventory", RecordJson.plain(frame.inventory()));
        return RecordJson.write(out);
    }

    /** node -> leaf -> spine (and per adapter) of a fabric description. */
    public static String topology(final FabricMap map) {
        final Map<String, Object> nodes = new LinkedHashMap<>();
        for (final Map.Entry<String, List<Attachment>> e : map.byNode().entrySet()) {
            final Attachment primary = e.getValue().get(0);
            final Map<String, Object> node = new LinkedHashMap<>();
            node.put("leaf", primary.leaf());
            node.put("spine", primary.spine());
            node.put("rail", primary.rail());
            final List<Object> hcas = new ArrayList<>();
            for (final Attachment a : e.getValue()) {
                final Map<String, Object> h = new LinkedHashMap<>();
                h.put("hca", a.hca());
                h.put("leaf", a.leaf());
                h.put("spines", a.spines());
                h.put("rail", a.rail());
                hcas.add(h);
            }
            node.put("hcas", hcas);
            nodes.put(e.getKey(), node);
        }
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("source", map.source());
        out.put("nodes", nodes);
        out.put("leaves", map.leaves());
        out.put("warnings", map.warnings());
        return RecordJson.write(out);
    }

    private static String gpuReplay(final String source, final List<GpuSnapshot> snapshots, final String nodeId,
            final String pool, final Instant at) throws IOException {
        final List<Object> samples = new ArrayList<>();
        final List<String> warnings = new ArrayList<>();
        NodeInventory inventory = null;
        for (final GpuSnapshot s : snapshots) {
            final NodeCollector c = new NodeCollector(nodeId, pool, fixed(source, s), null, null, null, null, Map.of(), 0)
                    .notThisHost();
            try {
                final var frame = c.poll(at);
                final GpuSamples gpu = frame.gpu();
                samples.add(RecordJson.plain(gpu));
                inventory = frame.inventory();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            }
            warnings.addAll(s.warnings());
        }
        final Map<String, Object> out = new LinkedHashMap<>();
        out.put("gpuSamples", samples);
        out.put("inventory", RecordJson.plain(inventory));
        out.put("warnings", warnings);
        return RecordJson.write(out);
    }

    private static GpuSource fixed(final String name, final GpuSnapshot snapshot) {
        return new GpuSource() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public GpuSnapshot read() {
                return snapshot;
            }
        };
    }

    private static String read(final Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--from-file " + file + " is not a readable file");
        }
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    }
}
