package dev.tickwheel.client.model;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.util.Objects;

/**
 * A node of a workflow: a step that runs one instance of a job.
 *
 * <p>Immutable.
 *
 * @param id    its id in the workflow: 1..100 letters, digits, '.', '_' or '-', unique in the workflow
 * @param jobId the job whose instance it runs (a JSON string on the wire, as the API's IDs are)
 */
public record WorkflowNode(String id, @JsonFormat(shape = JsonFormat.Shape.STRING) long jobId) {

    public WorkflowNode {
        Objects.requireNonNull(id, "id");
    }
}
