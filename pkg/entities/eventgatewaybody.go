package entities

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/intstr"

	configurationv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/configuration/v1alpha1"
	konnectv1alpha1 "github.com/konnect-operator/konnect-operator/pkg/apis/konnect/v1alpha1"
)

// The Event Gateway kinds write their apiSpec as Konnect's API takes it,
// by one rule rather than field by field: Kong Operator's field names are
// Konnect's in camelCase (minBrokerID is min_broker_id), its switches are
// Konnect's booleans (Enabled, Disabled), and its unions are Konnect's
// with the member spelled out ({type: saslPlain, saslPlain: {…}} is
// {type: sasl_plain, …}). A member that is a list or a string is the
// union itself ({type: stat, stat: […]} is […]). Sensitive values are read
// from where the spec says, and a schema registry named by its object
// becomes its Konnect ID.

// egBody is an Event Gateway entity as Konnect's API writes it, in JSON
// values: what the objects of the Event Gateway kinds ask for, and what
// Konnect answers.
type egBody = map[string]any

// egEncoder writes a spec's values as Konnect's API takes them.
type egEncoder struct {
	// secret returns a sensitive value.
	secret func(configurationv1alpha1.SensitiveDataSource) (string, error)
	// schemaRegistry returns how Konnect names the schema registry an
	// object names (nil when the kind names none).
	schemaRegistry func(configurationv1alpha1.EventGatewaySchemaRegistryRef) (any, error)
}

// discriminators are the fields that say which member of a union is set.
var discriminators = []string{"type", "op"}

// body writes v, a struct of an apiSpec, as a Konnect body.
func (e egEncoder) body(v any) (egBody, error) {
	out, err := e.value(reflect.ValueOf(v))
	if err != nil {
		return nil, err
	}
	body, ok := out.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%T is not an object", v)
	}
	return body, nil
}

func (e egEncoder) value(v reflect.Value) (any, error) {
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return nil, nil
		}
		v = v.Elem()
	}
	switch x := v.Interface().(type) {
	case konnectv1alpha1.Toggle:
		return x.Bool(), nil
	case intstr.IntOrString:
		if x.Type == intstr.Int {
			return x.IntValue(), nil
		}
		return x.StrVal, nil
	case configurationv1alpha1.SensitiveDataSource:
		return e.secret(x)
	case configurationv1alpha1.EventGatewaySchemaRegistryRef:
		if e.schemaRegistry == nil {
			return nil, fmt.Errorf("schemaRegistry names an object where Konnect takes an ID or a name")
		}
		return e.schemaRegistry(x)
	case configurationv1alpha1.EventGatewaySchemaRegistryByIDOrName:
		// Konnect tells the two apart by their field, without a type.
		if x.Type == "id" && x.ID != nil {
			return map[string]any{"id": x.ID.ID}, nil
		}
		if x.Name != nil {
			return map[string]any{"name": x.Name.Name}, nil
		}
		return nil, fmt.Errorf("schemaRegistry of type %s names no schema registry", x.Type)
	}
	switch v.Kind() {
	case reflect.Struct:
		return e.object(v)
	case reflect.Slice:
		if v.IsNil() {
			return nil, nil
		}
		out := make([]any, v.Len())
		for i := range out {
			item, err := e.value(v.Index(i))
			if err != nil {
				return nil, err
			}
			out[i] = item
		}
		return out, nil
	case reflect.Map:
		out := make(map[string]any, v.Len())
		for _, key := range v.MapKeys() {
			item, err := e.value(v.MapIndex(key))
			if err != nil {
				return nil, err
			}
			out[key.String()] = item
		}
		return out, nil
	case reflect.String:
		return v.String(), nil
	case reflect.Int, reflect.Int32, reflect.Int64:
		return v.Int(), nil
	case reflect.Bool:
		return v.Bool(), nil
	}
	return nil, fmt.Errorf("a %s cannot be written to Konnect", v.Type())
}

// object writes a struct's set fields under Konnect's names, embedded
// structs inline, and spells out the member of a union.
func (e egEncoder) object(v reflect.Value) (any, error) {
	out := map[string]any{}
	for i := range v.NumField() {
		field, f := v.Type().Field(i), v.Field(i)
		name, _, _ := strings.Cut(field.Tag.Get("json"), ",")
		if !field.IsExported() || name == "-" || f.IsZero() {
			continue
		}
		value, err := e.value(f)
		if err != nil {
			return nil, err
		}
		if field.Anonymous && name == "" {
			embedded, _ := value.(map[string]any)
			for k, v := range embedded {
				out[k] = v
			}
			continue
		}
		if value != nil {
			out[snakeCase(name)] = value
		}
	}
	for _, discriminator := range discriminators {
		typ, ok := out[discriminator].(string)
		if !ok {
			continue
		}
		key := snakeCase(typ)
		out[discriminator] = key
		member, isMember := out[key]
		if !isMember || key == discriminator {
			continue
		}
		delete(out, key)
		fields, isObject := member.(map[string]any)
		if !isObject {
			return member, nil // a list or a string is the union itself
		}
		for k, v := range fields {
			out[k] = v
		}
	}
	return out, nil
}

// snakeCase is a Kong Operator field name (or union type) as Konnect's
// API spells it: minBrokerID is min_broker_id, exactList exact_list.
func snakeCase(s string) string {
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		if unicode.IsUpper(r) && i > 0 {
			previous := runes[i-1]
			nextIsLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(previous) || unicode.IsDigit(previous) || (unicode.IsUpper(previous) && nextIsLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
