package io.gpupool.cli.submit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;

/**
 * GPU models by a short alias: {@code H100} or {@code a100-80gb} for the name the inventory reports
 * ('NVIDIA H100 80GB HBM3', 'NVIDIA A100-SXM4-80GB'). An alias matches a model when each of its words
 * (split at spaces, dashes, underscores) starts a word of the model's name, case aside; a full name
 * matches itself. Matched against the models the pool's nodes report, or, when those are not known,
 * the names nvidia-smi gives common data-centre GPUs.
 */
final class GpuModels {

    /** nvidia-smi's names of common data-centre GPUs, for when the pool's own models are not known. */
    static final List<String> COMMON = List.of("NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA H100 NVL", "NVIDIA H100 PCIe",
            "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB", "NVIDIA A100 80GB PCIe", "NVIDIA A100-PCIE-40GB",
            "NVIDIA L40S", "NVIDIA L4", "NVIDIA A10", "Tesla V100-SXM2-32GB", "Tesla V100-SXM2-16GB", "Tesla T4");

    /** The request's models as full names, and one line per alias that was resolved ("H100 -> NVIDIA ..."). */
    record Resolved(List<String> models, List<String> notes) {
    }

    private GpuModels() {
    }

    /**
     * A name that matches none of {@code known} is passed on as given: the pool check (or the scheduler) says
     * which models the pool has.
     *
     * @throws IllegalArgumentException for an alias that matches several models
     */
    static Resolved resolve(final List<String> asked, final Collection<String> known) {
        final Set<String> models = new LinkedHashSet<>();
        final List<String> notes = new ArrayList<>();
        for (final String alias : asked) {
            final List<String> matches = matches(alias, known);
            if (matches.size() == 1) {
                models.add(matches.get(0));
                if (!matches.get(0).equals(alias)) {
                    notes.add("model " + alias + " -> " + matches.get(0));
                }
            } else if (matches.size() > 1) {
                throw new IllegalArgumentException("GPU model '" + alias + "' matches " + matches.size() + " models: "
                        + String.join(", ", matches) + "; give more of the name, or several with --gpu-model A,B");
            } else {
                models.add(alias);
            }
        }
        return new Resolved(List.copyOf(models), notes);
    }

    static List<String> matches(final String alias, final Collection<String> known) {
        for (final String k : known) {
            if (k.equalsIgnoreCase(alias.trim())) {
                return List.of(k);
            }
        }
        final List<String> want = words(alias);
        final List<String> out = new ArrayList<>();
        for (final String k : new TreeSet<>(known)) {
            final List<String> have = words(k);
            if (!want.isEmpty() && want.stream().allMatch(w -> have.stream().anyMatch(h -> h.startsWith(w)))) {
                out.add(k);
            }
        }
        return out;
    }

    private static List<String> words(final String name) {
        final List<String> out = new ArrayList<>();
        for (final String w : name.toLowerCase(Locale.ROOT).split("[\\s_-]+")) {
            if (!w.isEmpty()) {
                out.add(w);
            }
        }
        return out;
    }
}
