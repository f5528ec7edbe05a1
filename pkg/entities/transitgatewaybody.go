package entities

import (
	"reflect"

	"github.com/Kong/sdk-konnect-go/models/components"

	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

type transitGateway = *konnectv1alpha1.KonnectCloudGatewayTransitGateway

// transitGatewayDesired is the transit gateway tg asks Konnect for.
func transitGatewayDesired(tg transitGateway) components.CreateTransitGatewayRequest {
	switch spec := tg.Spec.KonnectTransitGatewayAPISpec; {
	case spec.Type == konnectv1alpha1.TransitGatewayTypeAWS && spec.AWSTransitGateway != nil:
		aws := spec.AWSTransitGateway
		return components.CreateCreateTransitGatewayRequestAWSTransitGateway(components.AWSTransitGateway{
			Name: aws.Name, DNSConfig: dnsConfig(aws.DNSConfig), CidrBlocks: nonNil(aws.CIDRBlocks),
			TransitGatewayAttachmentConfig: components.AwsTransitGatewayAttachmentConfig{
				Kind:             components.AWSTransitGatewayAttachmentConfigAWSTransitGatewayAttachmentTypeAwsTransitGatewayAttachment,
				TransitGatewayID: aws.AttachmentConfig.TransitGatewayID, RAMShareArn: aws.AttachmentConfig.RAMShareArn,
			},
		})
	case spec.Type == konnectv1alpha1.TransitGatewayTypeAzure && spec.AzureTransitGateway != nil:
		azure := spec.AzureTransitGateway
		return components.CreateCreateTransitGatewayRequestAzureTransitGateway(components.AzureTransitGateway{
			Name: azure.Name, DNSConfig: dnsConfig(azure.DNSConfig),
			TransitGatewayAttachmentConfig: components.AzureVNETPeeringAttachmentConfig{
				Kind:     components.AzureVNETPeeringAttachmentTypeAzureVnetPeeringAttachment,
				TenantID: azure.AttachmentConfig.TenantID, SubscriptionID: azure.AttachmentConfig.SubscriptionID,
				ResourceGroupName: azure.AttachmentConfig.ResourceGroupName, VnetName: azure.AttachmentConfig.VnetName,
			},
		})
	}
	// The schema refuses any other combination.
	return components.CreateTransitGatewayRequest{}
}

// dnsConfig is the spec's DNS configuration as Konnect takes it: both
// lists present in every item.
func dnsConfig(in []konnectv1alpha1.TransitGatewayDNSConfig) []components.TransitGatewayDNSConfig {
	var out []components.TransitGatewayDNSConfig
	for _, c := range in {
		out = append(out, components.TransitGatewayDNSConfig{
			RemoteDNSServerIPAddresses: nonNil(c.RemoteDNSServerIPAddresses), DomainProxyList: nonNil(c.DomainProxyList),
		})
	}
	return out
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// transitGatewayAnswer is what this package reads of Konnect's answer about
// a transit gateway, whatever its kind.
type transitGatewayAnswer struct {
	id, name string
	state    components.TransitGatewayState
	// reason is Konnect's explanation of an error state.
	reason string
	// kind is the desired request's type the answer matches, "" for kinds
	// the operator does not create.
	kind       components.CreateTransitGatewayRequestType
	cidrBlocks []string
	dns        []components.TransitGatewayDNSConfig
	// attachment is the attachment configuration as it would be sent.
	attachment any
}

func answerOf(r *components.TransitGatewayResponse) transitGatewayAnswer {
	switch {
	case r == nil:
	case r.AwsTransitGatewayResponse != nil:
		aws := r.AwsTransitGatewayResponse
		cfg := aws.TransitGatewayAttachmentConfig
		return transitGatewayAnswer{
			id: aws.ID, name: aws.Name, state: aws.State, reason: deref(aws.StateMetadata.GetReason()),
			kind: components.CreateTransitGatewayRequestTypeAWSTransitGateway, cidrBlocks: aws.CidrBlocks, dns: aws.DNSConfig,
			attachment: components.AwsTransitGatewayAttachmentConfig{
				Kind:             components.AWSTransitGatewayAttachmentConfigAWSTransitGatewayAttachmentType(cfg.Kind),
				TransitGatewayID: cfg.TransitGatewayID, RAMShareArn: cfg.RAMShareArn,
			},
		}
	case r.AzureTransitGatewayResponse != nil:
		azure := r.AzureTransitGatewayResponse
		return transitGatewayAnswer{
			id: azure.ID, name: azure.Name, state: azure.State, reason: deref(azure.StateMetadata.GetReason()),
			kind: components.CreateTransitGatewayRequestTypeAzureTransitGateway, dns: azure.DNSConfig,
			attachment: azure.TransitGatewayAttachmentConfig,
		}
	case r.AwsVpcPeeringGatewayResponse != nil:
		return transitGatewayAnswer{id: r.AwsVpcPeeringGatewayResponse.ID, name: r.AwsVpcPeeringGatewayResponse.Name, state: r.AwsVpcPeeringGatewayResponse.State}
	case r.AzureVhubPeeringGatewayResponse != nil:
		return transitGatewayAnswer{id: r.AzureVhubPeeringGatewayResponse.ID, name: r.AzureVhubPeeringGatewayResponse.Name, state: r.AzureVhubPeeringGatewayResponse.State}
	case r.GCPVPCPeeringGatewayResponse != nil:
		return transitGatewayAnswer{id: r.GCPVPCPeeringGatewayResponse.ID, name: r.GCPVPCPeeringGatewayResponse.Name, state: r.GCPVPCPeeringGatewayResponse.State}
	case r.AwsResourceEndpointGatewayResponse != nil:
		return transitGatewayAnswer{id: r.AwsResourceEndpointGatewayResponse.ID, name: r.AwsResourceEndpointGatewayResponse.Name, state: r.AwsResourceEndpointGatewayResponse.State}
	}
	return transitGatewayAnswer{}
}

// desiredParts splits the desired request as answerOf splits an answer.
func desiredParts(desired components.CreateTransitGatewayRequest) transitGatewayAnswer {
	switch {
	case desired.AWSTransitGateway != nil:
		aws := desired.AWSTransitGateway
		return transitGatewayAnswer{name: aws.Name, kind: desired.Type, cidrBlocks: aws.CidrBlocks, dns: aws.DNSConfig, attachment: aws.TransitGatewayAttachmentConfig}
	case desired.AzureTransitGateway != nil:
		azure := desired.AzureTransitGateway
		return transitGatewayAnswer{name: azure.Name, kind: desired.Type, dns: azure.DNSConfig, attachment: azure.TransitGatewayAttachmentConfig}
	}
	return transitGatewayAnswer{}
}

// transitGatewayFixed names the fields Konnect cannot change that differ
// between the desired transit gateway and the one in Konnect: all but the
// CIDR blocks.
func transitGatewayFixed(want, got transitGatewayAnswer) []string {
	var d diff
	d.check("type", want.kind == got.kind)
	d.check("name", want.name == got.name)
	d.check("dns_config", sameDNS(want.dns, got.dns))
	d.check("attachment_config", reflect.DeepEqual(want.attachment, got.attachment))
	return d
}

func sameDNS(a, b []components.TransitGatewayDNSConfig) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !sameSet(a[i].RemoteDNSServerIPAddresses, b[i].RemoteDNSServerIPAddresses) || !sameSet(a[i].DomainProxyList, b[i].DomainProxyList) {
			return false
		}
	}
	return true
}
