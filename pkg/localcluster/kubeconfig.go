package localcluster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// kubeconfigName names the cluster, user and context in written kubeconfigs.
const kubeconfigName = "localcluster"

// WriteKubeconfig writes a kubeconfig for cfg to path (mode 0600, parent
// folders created): its server, CA, and bearer token or client certificate.
// Inline data is written inline; file paths are written as paths.
func (c *Cluster) WriteKubeconfig(path string, cfg *rest.Config) error {
	return writeKubeconfig(path, cfg)
}

func writeKubeconfig(path string, cfg *rest.Config) error {
	if cfg == nil || cfg.Host == "" {
		return errors.New("write kubeconfig: the config has no server")
	}
	cluster := &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthority:     cfg.CAFile,
		CertificateAuthorityData: cfg.CAData,
		InsecureSkipTLSVerify:    cfg.Insecure,
		TLSServerName:            cfg.ServerName,
	}
	user := &clientcmdapi.AuthInfo{
		Token:                 cfg.BearerToken,
		TokenFile:             cfg.BearerTokenFile,
		ClientCertificate:     cfg.CertFile,
		ClientCertificateData: cfg.CertData,
		ClientKey:             cfg.KeyFile,
		ClientKeyData:         cfg.KeyData,
		Username:              cfg.Username,
		Password:              cfg.Password,
		Impersonate:           cfg.Impersonate.UserName,
		ImpersonateGroups:     cfg.Impersonate.Groups,
	}
	kubeconfig := clientcmdapi.NewConfig()
	kubeconfig.Clusters[kubeconfigName] = cluster
	kubeconfig.AuthInfos[kubeconfigName] = user
	kubeconfig.Contexts[kubeconfigName] = &clientcmdapi.Context{Cluster: kubeconfigName, AuthInfo: kubeconfigName}
	kubeconfig.CurrentContext = kubeconfigName

	data, err := clientcmd.Write(*kubeconfig)
	if err != nil {
		return fmt.Errorf("write kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// Write then rename, so that a reader never sees a half-written file.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kubeconfig-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Kubectl runs the cluster's kubectl with the admin kubeconfig and returns
// its standard output. A failure is a *KubectlError carrying standard error.
func (c *Cluster) Kubectl(ctx context.Context, args ...string) (string, error) {
	full := append([]string{
		"--kubeconfig=" + c.KubeconfigPath,
		// A cache per cluster: clusters of parallel test packages never share
		// discovery results.
		"--cache-dir=" + filepath.Join(c.Dir, "kubectl-cache"),
	}, args...)
	cmd := exec.CommandContext(ctx, c.KubectlPath, full...)
	cmd.SysProcAttr = childProcessAttributes()
	cmd.Env = append(os.Environ(), "KUBECONFIG=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), &KubectlError{Args: args, Stderr: stderr.String(), Err: err}
	}
	return stdout.String(), nil
}
