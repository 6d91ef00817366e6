package io.gpupool.collector.nvidiasmi;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a capture file whose sections each start with {@code # $ <command>} (the layout of
 * nvidia_gpu_exporter's captures and of many support bundles) into command and output.
 */
public final class CaptureSections {
    public static final String MARK = "# $ ";

    /** @param command the command line after "# $ "; @param body what the command printed */
    public record Section(String command, int firstLine, String body) {
    }

    private CaptureSections() {
    }

    public static boolean isCapture(final String text) {
        return text.startsWith(MARK) || text.contains("\n" + MARK);
    }

    public static List<Section> split(final String text) {
        final List<Section> sections = new ArrayList<>();
        String command = null;
        int first = 0;
        StringBuilder body = new StringBuilder();
        final String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            final String line = lines[i];
            if (line.startsWith(MARK)) {
                if (command != null) {
                    sections.add(new Section(command, first, body.toString()));
                }
                command = line.substring(MARK.length()).trim();
                first = i + 2;
                body = new StringBuilder();
            } else if (command != null) {
                body.append(line).append('\n');
            }
        }
        if (command != null) {
            sections.add(new Section(command, first, body.toString()));
        }
        return sections;
    }
}
