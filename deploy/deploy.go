// Package deploy holds the files that run mmcp flows at scale (a
// container image, a Kubernetes Indexed Job, a CI matrix workflow) and
// reads the Job strictly with the Kubernetes API types, for the tests
// that check them and run the shards the Job would run.
package deploy

import (
	_ "embed"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// JobYAML is the Indexed Job manifest (kubernetes/flows-job.yaml).
//
//go:embed kubernetes/flows-job.yaml
var JobYAML []byte

// Job decodes the manifest strictly: a field the batch/v1 Job type does
// not have, or a duplicate field, is an error.
func Job() (*batchv1.Job, error) {
	var j batchv1.Job
	if err := yaml.UnmarshalStrict(JobYAML, &j); err != nil {
		return nil, fmt.Errorf("kubernetes/flows-job.yaml: %w", err)
	}
	return &j, nil
}

// ClaimYAML is the results volume's claim (kubernetes/results-pvc.yaml).
//
//go:embed kubernetes/results-pvc.yaml
var ClaimYAML []byte

// Claim decodes the results claim strictly.
func Claim() (*corev1.PersistentVolumeClaim, error) {
	var c corev1.PersistentVolumeClaim
	if err := yaml.UnmarshalStrict(ClaimYAML, &c); err != nil {
		return nil, fmt.Errorf("kubernetes/results-pvc.yaml: %w", err)
	}
	return &c, nil
}
