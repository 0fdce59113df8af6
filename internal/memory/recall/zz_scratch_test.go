package recall
import ("testing";"encoding/json";"os")
func TestZZDetail(t *testing.T){
 raw,_:=os.ReadFile("../../../cmd/infmem-bench/testdata/everyday-absent.json")
 var s struct{Memories []struct{ID string;Text string};Questions []struct{Q string;Answers []string};NeverStored []string `json:"never_stored"`}
 json.Unmarshal(raw,&s)
 txt:=map[string]string{}
 for _,m:=range s.Memories{txt[m.ID]=m.Text}
 for _,q:=range s.Questions{
   a:=askedDetail(q.Q,DetailsAll)
   if a.kind==0 {continue}
   held:=a.heldBy(txt[q.Answers[0]])
   mark:=""; if !held {mark="BAD"}
   t.Logf("%3s ANS k=%d h=%s role=%v | %s | %s", mark, a.kind, a.head, a.role, q.Q, txt[q.Answers[0]])
 }
 for _,q:=range s.NeverStored{
   a:=askedDetail(q,DetailsAll)
   t.Logf("NS k=%d h=%s role=%v verb=%s | %s", a.kind, a.head, a.role, a.verb, q)
 }
}
