package io.gpupool.cli.view;

import io.gpupool.cli.config.ExitCodes;
import com.fasterxml.jackson.databind.JsonNode;
import io.gpupool.scheduler.query.QueryClient;
import java.io.PrintWriter;

/**
 * What a read command shows: the scheduler's answer (printed as it is for json and yaml) and how people read it
 * (table or wide). {@link OutputOptions#show} does the rest: the format, {@code --watch}, errors.
 */
public interface Screen {
    /** The answer, raw: epoch milliseconds stay epoch milliseconds. */
    JsonNode fetch(QueryClient scheduler);

    /** The answer for people; {@code wide} adds the columns a table leaves out. */
    void print(JsonNode answer, boolean wide, HumanTime time, PrintWriter out);

    /** The exit code of a failed query (1 unless a command documents another). */
    default int failureCode(final QueryClient.QueryException e) {
        return ExitCodes.forQuery(e.status()).code();
    }
}
