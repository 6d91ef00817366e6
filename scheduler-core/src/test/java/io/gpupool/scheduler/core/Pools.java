package io.gpupool.scheduler.core;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Test pools: synthetic fabrics and the real topology shapes in src/test/resources/topology. */
final class Pools {
    private Pools() {
    }

    static EngineConfig config(final ScoringPolicy p) {
        return EngineConfig.defaults("p").withPolicy(p);
    }

    /** A node with {@code gpus} GPUs of one model in NVLink groups of {@code groupSize}, IB + RoCE HCAs. */
    static NodeSpec node(final String id, final String leaf, final String spine, final int gpus, final String model,
                         final int groupSize) {
        final List<GpuSpec> g = new ArrayList<>();
        for (int i = 0; i < gpus; i++) {
            g.add(new GpuSpec(id + "-gpu" + i, model, 81_559, i / groupSize, i / 4));
        }
        return new NodeSpec(id, leaf, spine, 200_000, 2_000_000, g, h100Hcas());
    }

    static NodeSpec node(final String id, final String leaf, final int gpus) {
        return node(id, leaf, "s0", gpus, "H100", gpus);
    }

    /** {@code leaves} leaves of {@code perLeaf} nodes x {@code gpus} H100, named l{i} / n{l}-{i}. */
    static PoolEngine pool(final EngineConfig cfg, final int leaves, final int perLeaf, final int gpus) {
        final PoolEngine e = new PoolEngine(cfg);
        for (int l = 0; l < leaves; l++) {
            for (int i = 0; i < perLeaf; i++) {
                e.apply(new EngineInput.NodeUpsert(0, node("n" + l + "-" + i, "l" + l, gpus)));
            }
        }
        return e;
    }

    /** The H100 node's HCAs as its sysfs tree names them: 8 InfiniBand, one RoCE bond. */
    static List<HcaSpec> h100Hcas() {
        final List<HcaSpec> out = new ArrayList<>();
        try (InputStream in = Pools.class.getResourceAsStream("/topology/h100-hca-link-layers.txt");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            int rail = 0;
            while ((line = r.readLine()) != null) {
                final String[] f = line.trim().split("\\s+");
                final HcaLinkLayer ll = f[1].equals("Ethernet") ? HcaLinkLayer.ETHERNET : HcaLinkLayer.INFINIBAND;
                out.add(new HcaSpec(f[0], ll, ll == HcaLinkLayer.INFINIBAND ? rail++ : -1));
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }

    private static final Pattern CA = Pattern.compile("^CA .*\\( '(\\S+) [^']*' - '([^']+)' \\)");
    private static final Pattern UPLINK = Pattern.compile("^SW .* SW .*\\( '([^']+)' - '([^']+)' \\)");

    /**
     * Nodes from the real ibnetdiscover output: each host adapter's node under its leaf switch, the
     * leaf's spine from the switch-to-switch link; 8 H100 each (the GPUs are not in that file).
     */
    static List<NodeSpec> ibnetdiscoverNodes() {
        final Map<String, String> leafOf = new TreeMap<>();
        final Map<String, String> spineOf = new TreeMap<>();
        try (InputStream in = Pools.class.getResourceAsStream("/topology/ibnetdiscover-ports.out");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                final Matcher ca = CA.matcher(line);
                if (ca.find()) {
                    leafOf.put(ca.group(1), ca.group(2));
                }
                final Matcher up = UPLINK.matcher(line);
                if (up.find()) {
                    spineOf.put(up.group(1), up.group(2));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        final List<NodeSpec> out = new ArrayList<>();
        leafOf.forEach((node, leaf) -> out.add(node(node, leaf, spineOf.getOrDefault(leaf, NodeSpec.DEFAULT_SPINE), 8,
                "H100", 8)));
        return out;
    }

    static EngineInput.SubmitJob submit(final long ts, final JobSpec job) {
        return new EngineInput.SubmitJob(ts, job);
    }

    static List<Decision> of(final EngineOutput out, final DecisionKind kind) {
        return out.decisions().stream().filter(d -> d.kind() == kind).toList();
    }
}
